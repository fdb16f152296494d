import Foundation
import GuildClient
import GuildJSON
import GuildProtocol
import GuildTestSupport
import Testing

/// `object.get` runs at once on the event loop when it can (see `MethodRegistry.registerRead`). These check,
/// from uid 65534 (root is always an admin, and admins skip ACLs), that it answers exactly as the task path
/// does: as the session bound at its place in the stream, with the ACL checked, and never with a session
/// revoked since it was bound.
@Suite(.endToEnd, .enabled(if: getuid() == 0, "needs root to run a client as another uid"))
struct ImmediateReadTests {
    /// A private object in the owner's user scope; returns (owner, other) as (id, token).
    static func setUp(_ socket: String) async throws -> (owner: (id: String, token: String), other: (id: String, token: String)) {
        let admin = try await GuildClient.connect(path: socket)
        defer { Task { await admin.close() } }
        let owner = try await admin.call(UserMethods.RegisterPseudo.self, .init(displayName: "owner"))
        let other = try await admin.call(UserMethods.RegisterPseudo.self, .init(displayName: "other"))
        let client = try await GuildClient.connect(path: socket)
        _ = try await client.call(SessionMethods.Authenticate.self, .init(accessToken: owner.accessToken))
        _ = try await client.call(
            ObjectMethods.Create.self,
            .init(scope: "user:" + owner.user.userID, bucket: "private", body: ["n": 1], objectID: "o1")
        )
        await client.close()
        return ((owner.user.userID, owner.accessToken), (other.user.userID, other.accessToken))
    }

    /// Runs `script` as uid 65534 with the socket and the Python client's folder as arguments; returns its
    /// stdout as JSON.
    static func runAsNobody(_ script: String, _ arguments: [String]) async throws -> Any {
        let run = try await UnprivilegedPython.run(script, arguments)
        #expect(run.status == 0 && run.stderr.isEmpty, "\(run.stderr)")
        return try JSONSerialization.jsonObject(with: Data(run.stdout.utf8))
    }

    /// Logins of the object's owner and of another user alternate, pipelined with reads in one write: each read
    /// acts as the session bound just before it (the owner reads the private object, the other user gets the
    /// not-found answer), on either path.
    @Test(arguments: [true, false])
    func readsActAsTheSessionBoundBeforeThem(immediate: Bool) async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let daemon = try await RealDaemon.start(scratch, ["--socket-mode", "0666"] + (immediate ? [] : ["--no-immediate-reads"]))
        defer { daemon.terminate() }
        let (owner, other) = try await Self.setUp(scratch.socket)
        let script = """
            import json, socket, sys
            owner, other, scope = sys.argv[2], sys.argv[3], sys.argv[4]
            lines = []
            for round in range(40):
                token = owner if round % 2 == 0 else other
                base = round * 3
                lines.append({"jsonrpc": "2.0", "id": base, "method": "session.authenticate", "params": {"accessToken": token}})
                for i in (1, 2):
                    lines.append({"jsonrpc": "2.0", "id": base + i, "method": "object.get",
                                  "params": {"scope": scope, "bucket": "private", "objectID": "o1"}})
            s = socket.socket(socket.AF_UNIX)
            s.connect(sys.argv[1])
            s.sendall("".join(json.dumps(line) + "\\n" for line in lines).encode())
            replies, buffer = [], b""
            while len(replies) < len(lines):
                chunk = s.recv(65536)
                if not chunk:
                    break
                buffer += chunk
                while b"\\n" in buffer:
                    line, buffer = buffer.split(b"\\n", 1)
                    replies.append(json.loads(line))
            print(json.dumps(replies))
            """
        let replies = try #require(
            try await Self.runAsNobody(script, [scratch.socket, owner.token, other.token, "user:" + owner.id]) as? [[String: Any]]
        )
        #expect(replies.count == 120)
        for reply in replies {
            let id = try #require(reply["id"] as? Int)
            guard id % 3 != 0 else {
                #expect(reply["result"] != nil, "\(reply)")
                continue
            }
            if (id / 3) % 2 == 0 {
                #expect((reply["result"] as? [String: Any])?["_id"] as? String == "o1", "request \(id): \(reply)")
            } else {
                let data = (reply["error"] as? [String: Any])?["data"] as? [String: Any]
                #expect(data?["reason"] as? String == "OBJECT_NOT_FOUND", "request \(id): \(reply)")
            }
        }
    }

    /// A read on a connection whose session was revoked elsewhere never acts as that session: the event loop
    /// does not answer from a binding it has not re-checked, and the task path unbinds it, so the read (open to
    /// anyone) acts anonymously and the private object is not found, now and after.
    @Test func aRevokedSessionIsNeverReadWith() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let daemon = try await RealDaemon.start(scratch, ["--socket-mode", "0666"])
        defer { daemon.terminate() }
        let (owner, _) = try await Self.setUp(scratch.socket)
        let script = """
            import json, sys
            sys.path.insert(0, sys.argv[2])
            from guild_client import GuildClient, GuildError
            reader, other = GuildClient(sys.argv[1]), GuildClient(sys.argv[1])
            params = {"scope": sys.argv[4], "bucket": "private", "objectID": "o1"}
            def get():
                try:
                    return reader.call("object.get", params)["_id"]
                except GuildError as error:
                    return error.reason
            reader.call("session.authenticate", {"accessToken": sys.argv[3]})
            outcomes = [get()]
            other.call("session.authenticate", {"accessToken": sys.argv[3]})
            other.call("user.putIdentity", {"username": "owner1", "password": "password-1"})
            other.call("user.changePassword", {"oldPassword": "password-1", "newPassword": "password-2"})
            outcomes += [get(), get()]
            print(json.dumps(outcomes))
            """
        let outcomes = try await Self.runAsNobody(script, [scratch.socket, PythonClientTests.clientDirectory, owner.token, "user:" + owner.id])
        #expect(outcomes as? [String] == ["o1", "OBJECT_NOT_FOUND", "OBJECT_NOT_FOUND"])
    }
    /// Answers given at once are kept until the next commit, and no longer: a member who read an object over and
    /// over sees it patched, and once removed from the group that grants the read, gets the not-found answer, on
    /// the very next call.
    @Test func keptAnswersEndWithTheNextCommit() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let daemon = try await RealDaemon.start(scratch, ["--socket-mode", "0666"])
        defer { daemon.terminate() }
        let admin = try await GuildClient.connect(path: scratch.socket)
        let owner = try await admin.call(UserMethods.RegisterPseudo.self, .init(displayName: "owner"))
        let member = try await admin.call(UserMethods.RegisterPseudo.self, .init(displayName: "member"))
        await admin.close()
        // A connection of its own (registering bound the first one to the new user): the object has no creator,
        // so only the group's entries let the member read it.
        let creator = try await GuildClient.connect(path: scratch.socket)
        _ = try await creator.call(
            GroupMethods.Create.self,
            .init(name: "team", groupID: "team", members: [.init(userID: member.user.userID)], owner: owner.user.userID)
        )
        _ = try await creator.call(ObjectMethods.Create.self, .init(scope: "group:team", bucket: "shared", body: ["n": 1], objectID: "o1"))
        await creator.close()
        let script = """
            import json, sys
            sys.path.insert(0, sys.argv[2])
            from guild_client import GuildClient, GuildError
            reader, owner = GuildClient(sys.argv[1]), GuildClient(sys.argv[1])
            reader.call("session.authenticate", {"accessToken": sys.argv[3]})
            owner.call("session.authenticate", {"accessToken": sys.argv[4]})
            ref = {"scope": "group:team", "bucket": "shared", "objectID": "o1"}
            def get():
                try:
                    return reader.call("object.get", ref)["n"]
                except GuildError as error:
                    return error.reason
            outcomes = [get(), get(), get()]
            owner.call("object.patch", dict(ref, body={"n": 2}))
            outcomes += [get(), get()]
            owner.call("group.removeMembers", {"groupID": "team", "userIDs": [sys.argv[5]]})
            outcomes += [get(), get()]
            print(json.dumps(outcomes))
            """
        let outcomes = try await Self.runAsNobody(
            script,
            [scratch.socket, PythonClientTests.clientDirectory, member.accessToken, owner.accessToken, member.user.userID]
        )
        let expected: [Any] = [1, 1, 1, 2, 2, "OBJECT_NOT_FOUND", "OBJECT_NOT_FOUND"]
        #expect((outcomes as? NSArray)?.isEqual(to: expected) == true, "\(outcomes)")
    }
}
