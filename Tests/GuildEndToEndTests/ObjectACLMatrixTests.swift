import Foundation
import GuildClient
import GuildHarness
import GuildJSON
import GuildProtocol
import GuildTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The ACL matrix through the real daemon's socket: every scope type × every action × every subject kind ×
/// every caller standing. Each cell gets a target of its own on which, after an admin has set it up, only the
/// cell's entry (and the scope's fixed defaults) grants the action; then the caller tries the operation the
/// action guards. Non-admin callers are real local users: their calls go through a Python client running as
/// uid 65534. The expected outcomes are written out by hand below.
///
/// The test walks its whole matrix through one daemon: the slowest of the end-to-end tests under load (`.endToEnd`).
@Suite(.endToEnd)
struct ObjectACLMatrixTests {
    /// The callers, in the order of the expectation strings.
    enum Caller: Int, CaseIterable {
        /// No session.
        case anonymous
        /// A user no entry names and in no group.
        case stranger
        /// The user `UserID:` entries name.
        case named
        /// A member of the group `GroupID:` entries name (not its owner).
        case member
        /// Alice: owner of that group, of the group scope, and the user of the user scope.
        case alice
    }

    /// Who each entry names.
    static let subjects = ["named", "group", "anyAuthenticated", "anonymous"]

    /// Allowed (Y) or refused (N) for [anonymous, stranger, named, member, alice], by scope and subject, when
    /// nothing but the cell's entry grants the action (app scope: its defaults revoked by the admin).
    /// Alice administers the group's and her own scope; in the app scope she is only the group's owner, so
    /// a member of it.
    static let isolated: [String: [String: String]] = [
        "app": ["named": "NNYNN", "group": "NNNYY", "anyAuthenticated": "NYYYY", "anonymous": "YYYYY"],
        "group": ["named": "NNYNY", "group": "NNNYY", "anyAuthenticated": "NYYYY", "anonymous": "YYYYY"],
        "user": ["named": "NNYNY", "group": "NNNYY", "anyAuthenticated": "NYYYY", "anonymous": "YYYYY"],
    ]

    /// The group scope's fixed defaults name the group for every action but dropping a bucket, so there the
    /// member is allowed whatever the cell's entry.
    static func expected(scope: String, action: String, subject: String) -> String {
        var row = Array(Self.isolated[scope]![subject]!)
        if scope == "group", action != "DROP_BUCKET_WITH_ALL_CONTENT" { row[Caller.member.rawValue] = "Y" }
        return String(row)
    }

    static let actions = [
        "CREATE_NEW_BUCKET", "CREATE_OBJECTS_IN_BUCKET", "QUERY_OBJECTS_IN_BUCKET", "READ_OBJECTS_IN_BUCKET",
        "DROP_BUCKET_WITH_ALL_CONTENT", "READ_EXISTING_OBJECT", "WRITE_EXISTING_OBJECT",
    ]

    /// A uid-65534 Python process that makes calls for the test: one line in (`{"token", "method", "params"}`,
    /// no token for no session), one line out (the reply), each token on a connection of its own.
    ///
    /// Its pipes are read and written on a queue of its own, off the concurrency pool: the matrix makes thousands
    /// of calls, and blocking a pool thread for each would leave the suite's other tests half the pool of a 2-CPU
    /// machine. Its client waits as long as the test's time limit allows (a hang, not a slow machine, ends it), and
    /// what it wrote to stderr is in the error if it ends early.
    final class Proxy: @unchecked Sendable {
        let process: ChildProcess
        let input = Pipe()
        let output = Pipe()
        let errorPath = FileManager.default.temporaryDirectory.appendingPathComponent("guild-acl-proxy-\(UUID().uuidString).err").path
        /// Reply bytes read but not yet answered; touched on `queue` only.
        var buffer = Data()
        let queue = DispatchQueue(label: "guild.acl-matrix.proxy")

        static let script = """
            import json, sys
            sys.path.insert(0, sys.argv[2])
            from guild_client import GuildClient, GuildError
            clients = {}
            for line in sys.stdin:
                request = json.loads(line)
                token = request.get("token")
                if token not in clients:
                    clients[token] = GuildClient(sys.argv[1], timeout=1800)
                    if token:
                        clients[token].call("session.authenticate", {"accessToken": token})
                try:
                    result = clients[token].call(request["method"], request["params"])
                    reply = {"ok": True}
                except GuildError as error:
                    reply = {"ok": False, "reason": error.reason}
                sys.stdout.write(json.dumps(reply) + "\\n")
                sys.stdout.flush()
            """

        init(socket: String) async throws {
            self.process = try await ChildProcess.spawn(
                "/usr/bin/setpriv",
                [
                    "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/env", "python3", "-c", Self.script, socket,
                    PythonClientTests.clientDirectory,
                ],
                input: self.input.fileHandleForReading.fileDescriptor,
                output: .descriptor(self.output.fileHandleForWriting.fileDescriptor),
                error: .file(self.errorPath)
            )
            // The child has its own copies; with these closed here, its exit ends our reads.
            try? self.input.fileHandleForReading.close()
            try? self.output.fileHandleForWriting.close()
        }

        /// Calls `method` as the holder of `token` (nil: no session); "Y" when it succeeded, else the reason.
        func call(token: String?, _ method: String, _ params: JSONValue) async throws -> String {
            var request: [String: JSONValue] = ["method": .string(method), "params": params]
            if let token { request["token"] = .string(token) }
            var line: [UInt8] = []
            JSONValue.object(request).writeJSON(to: &line)
            let sent = Data(line + [0x0A])
            let reply = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Data, any Error>) in
                self.queue.async { continuation.resume(with: Result { try self.exchange(sent) }) }
            }
            let object = try #require(try JSONSerialization.jsonObject(with: reply) as? [String: Any])
            return object["ok"] as? Bool == true ? "Y" : (object["reason"] as? String ?? "?")
        }

        /// Writes one request line and reads its reply line (blocking: on `queue` only).
        private func exchange(_ request: Data) throws -> Data {
            self.input.fileHandleForWriting.write(request)
            while true {
                if let newline = self.buffer.firstIndex(of: 0x0A) {
                    let reply = Data(self.buffer[..<newline])
                    self.buffer = Data(self.buffer[(newline + 1)...])
                    return reply
                }
                let chunk = self.output.fileHandleForReading.availableData
                guard !chunk.isEmpty else {
                    let stderr = (try? String(contentsOfFile: self.errorPath, encoding: .utf8)) ?? ""
                    throw DaemonError("the uid-65534 proxy ended before answering; its stderr: \(stderr)")
                }
                self.buffer.append(chunk)
            }
        }

        /// Closes the proxy's input: it ends, and swift-subprocess reaps it.
        func stop() {
            try? self.input.fileHandleForWriting.close()
            try? FileManager.default.removeItem(atPath: self.errorPath)
        }
    }

    @Test(.enabled(if: getuid() == 0, "needs root to run a client as another uid"))
    func everyScopeActionSubjectAndCaller() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let daemon = try await RealDaemon.start(scratch, ["--socket-mode", "0666"])
        defer { daemon.terminate() }
        let admin = try await GuildClient.connect(path: scratch.socket)
        var tokens: [String: String] = [:]
        var ids: [String: String] = [:]
        for name in ["stranger", "named", "member", "alice"] {
            let account = try await GuildClient.connect(path: scratch.socket)
            let auth = try await account.call(UserMethods.RegisterPseudo.self, .init(displayName: name))
            tokens[name] = auth.accessToken
            ids[name] = auth.user.userID
            await account.close()
        }
        let group = try await admin.call(
            GroupMethods.Create.self,
            .init(name: "Matrix", groupID: "matrix", members: [.init(userID: ids["member"]!)], owner: ids["alice"]!)
        ).group.groupID
        let scopes = ["app": "app", "group": "group:" + group, "user": "user:" + ids["alice"]!]
        let subjectText = [
            "named": "UserID:" + ids["named"]!, "group": "GroupID:" + group, "anyAuthenticated": "UserID:ANY_AUTHENTICATED_USER",
            "anonymous": "UserID:ANONYMOUS_USER",
        ]
        let callerTokens: [Caller: String?] = [
            .anonymous: nil, .stranger: tokens["stranger"], .named: tokens["named"], .member: tokens["member"], .alice: tokens["alice"],
        ]
        // The app scope's defaults let everyone in: the admin takes them away, so that only each cell's entry counts.
        _ = try await admin.revoke([.init(action: "CREATE_NEW_BUCKET", subject: "UserID:ANY_AUTHENTICATED_USER")], scope: "app", ensure: true)
        let appBucketDefaults: [ACLMethods.Entry] = [
            .init(action: "CREATE_OBJECTS_IN_BUCKET", subject: "UserID:ANY_AUTHENTICATED_USER"),
            .init(action: "QUERY_OBJECTS_IN_BUCKET", subject: "UserID:ANY_AUTHENTICATED_USER"),
            .init(action: "QUERY_OBJECTS_IN_BUCKET", subject: "UserID:ANONYMOUS_USER"),
            .init(action: "READ_OBJECTS_IN_BUCKET", subject: "UserID:ANY_AUTHENTICATED_USER"),
            .init(action: "READ_OBJECTS_IN_BUCKET", subject: "UserID:ANONYMOUS_USER"),
            .init(action: "DROP_BUCKET_WITH_ALL_CONTENT", subject: "UserID:ANY_AUTHENTICATED_USER"),
        ]
        let appObjectDefaults: [ACLMethods.Entry] = [
            .init(action: "READ_EXISTING_OBJECT", subject: "UserID:ANY_AUTHENTICATED_USER"),
            .init(action: "READ_EXISTING_OBJECT", subject: "UserID:ANONYMOUS_USER"),
            .init(action: "WRITE_EXISTING_OBJECT", subject: "UserID:ANY_AUTHENTICATED_USER"),
        ]

        let proxy = try await Proxy(socket: scratch.socket)
        defer { proxy.stop() }
        var mismatches: [String] = []
        var cell = 0
        for scopeName in ["app", "group", "user"] {
            let scope = scopes[scopeName]!
            for action in Self.actions {
                for subject in Self.subjects {
                    let want = Array(Self.expected(scope: scopeName, action: action, subject: subject))
                    for caller in Caller.allCases {
                        cell += 1
                        let bucket = "m\(cell)"
                        // The cell's target, made by the admin (so it has no creator), with only the cell's entry.
                        try await admin.createObject(scope: scope, bucket: bucket, body: ["n": 1], objectID: "o1")
                        if scopeName == "app" {
                            _ = try await admin.revoke(appBucketDefaults, scope: scope, bucket: bucket)
                            _ = try await admin.revoke(appObjectDefaults, scope: scope, bucket: bucket, objectID: "o1")
                        }
                        let entry = ACLMethods.Entry(action: action, subject: subjectText[subject]!)
                        let level: (bucket: String?, objectID: String?) =
                            switch action {
                            case "CREATE_NEW_BUCKET": (nil, nil)
                            case "READ_EXISTING_OBJECT", "WRITE_EXISTING_OBJECT": (bucket, "o1")
                            default: (bucket, nil)
                            }
                        let granted = try await admin.grant([entry], scope: scope, bucket: level.bucket, objectID: level.objectID, ensure: true)
                        #expect(granted.failed.isEmpty, "\(granted.failed)")

                        let (method, params): (String, JSONValue) =
                            switch action {
                            case "CREATE_NEW_BUCKET": ("object.create", ["scope": .string(scope), "bucket": .string("new\(cell)"), "body": ["n": 2]])
                            case "CREATE_OBJECTS_IN_BUCKET":
                                ("object.create", ["scope": .string(scope), "bucket": .string(bucket), "body": ["n": 2]])
                            case "QUERY_OBJECTS_IN_BUCKET": ("object.query", ["scope": .string(scope), "bucket": .string(bucket)])
                            case "DROP_BUCKET_WITH_ALL_CONTENT": ("bucket.delete", ["scope": .string(scope), "bucket": .string(bucket)])
                            case "WRITE_EXISTING_OBJECT":
                                ("object.patch", ["scope": .string(scope), "bucket": .string(bucket), "objectID": "o1", "body": ["n": 3]])
                            default: ("object.get", ["scope": .string(scope), "bucket": .string(bucket), "objectID": "o1"])
                            }
                        let outcome = try await proxy.call(token: callerTokens[caller]!, method, params)
                        let refusals = ["PERMISSION_DENIED", "UNAUTHORIZED", "OBJECT_NOT_FOUND", "BUCKET_NOT_FOUND"]
                        let got = outcome == "Y" ? "Y" : (refusals.contains(outcome) ? "N" : outcome)
                        if got != String(want[caller.rawValue]) {
                            mismatches.append("\(scopeName) \(action) \(subject) by \(caller): expected \(want[caller.rawValue]), got \(outcome)")
                        }
                        if action == "CREATE_NEW_BUCKET" {
                            _ = try await admin.revoke([entry], scope: scope, ensure: true)
                            if outcome == "Y" { try await admin.deleteBucket(scope: scope, bucket: "new\(cell)") }
                        }
                    }
                }
            }
        }
        #expect(cell == 3 * 7 * 4 * 5)
        #expect(mismatches == [], "\(mismatches.count) cells differ:\n\(mismatches.joined(separator: "\n"))")
        await admin.close()
    }
}
