import Foundation
import GuildTestSupport
import Testing

/// guildctl's bucket, object and acl commands and `watch --bucket` against a real daemon: human tables, JSON,
/// clause files, exit codes.
@Suite(.endToEnd)
struct ObjectGuildctlTests {
    func guildctl(_ arguments: [String], socket: String, token: String) async throws -> (status: Int32, stdout: String, stderr: String) {
        try await Child.run(Build.guildctl, arguments + ["--socket", socket], environment: ["GUILD_TOKEN": token])
    }

    @Test func objectsBucketsAndACLsFromTheCommandLine() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let daemon = try await RealDaemon.start(scratch)
        defer { daemon.terminate() }
        let socket = scratch.socket
        let registered = try await Child.run(
            Build.guildctl,
            ["user", "register", "--username", "olive", "--password", "pw-olive", "--json", "--socket", socket]
        )
        let auth = try #require(try JSONSerialization.jsonObject(with: Data(registered.stdout.utf8)) as? [String: Any])
        let token = try #require(auth["accessToken"] as? String)
        let userID = try #require((auth["user"] as? [String: Any])?["userID"] as? String)
        let scope = "user:" + userID

        // A watcher of the bucket (from the log's start, so it cannot miss it) sees the first change.
        let watch = try await Child(
            Build.guildctl,
            ["watch", "--bucket", "\(scope)/plants", "--since", "0", "--count", "1", "--json", "--socket", socket],
            environment: ["GUILD_TOKEN": token]
        )

        for (name, height) in [("fern", 30), ("oak", 900), ("moss", 2)] {
            let created = try await self.guildctl(
                [
                    "object", "create", "--scope", scope, "--bucket", "plants", "--object-id", name, "--body",
                    #"{"height":\#(height),"kind":"\#(name)"}"#,
                ],
                socket: socket,
                token: token
            )
            #expect(created.status == 0, "\(created.stderr)")
            #expect(created.stdout.contains("objectID: \(name)"))
        }
        let watched = await watch.wait()
        #expect(watched == 0)
        #expect(watch.stdout.contains("\"objectCreated\"") && watch.stdout.contains("fern"))

        // A clause from a file, a human table sorted by height.
        let clauseFile = scratch.path + "/clause.json"
        try #"{"type":"range","field":"height","lowerLimit":10}"#.write(toFile: clauseFile, atomically: true, encoding: .utf8)
        let table = try await self.guildctl(
            ["object", "query", "--scope", scope, "--bucket", "plants", "--clause", "@" + clauseFile, "--order-by", "height", "--all"],
            socket: socket,
            token: token
        )
        #expect(table.status == 0, "\(table.stderr)")
        let lines = table.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("ID") == true && lines.first?.contains("HEIGHT") == true)
        #expect(lines.dropFirst().map { $0.split(separator: " ").first.map(String.init) } == ["fern", "oak"])
        let json = try await self.guildctl(
            ["object", "query", "--scope", scope, "--bucket", "plants", "--clause", #"{"type":"eq","field":"kind","value":"moss"}"#, "--json"],
            socket: socket,
            token: token
        )
        let page = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect((page["results"] as? [[String: Any]])?.map { $0["_id"] as? String } == ["moss"])

        // A stale version is an application error (exit 1) naming the reason.
        let stale = try await self.guildctl(
            ["object", "patch", "--scope", scope, "--bucket", "plants", "--object-id", "oak", "--body", #"{"height":901}"#, "--if-version", "7"],
            socket: socket,
            token: token
        )
        #expect(stale.status == 1 && stale.stderr.contains("OBJECT_VERSION_IS_STALE"))
        let bad = try await self.guildctl(
            ["object", "create", "--scope", scope, "--bucket", "plants", "--body", "[1]"],
            socket: socket,
            token: token
        )
        #expect(bad.status == 64)

        // The ACL as a table of subject by action; a fixed entry cannot be revoked (exit 1, reason shown).
        let acl = try await self.guildctl(["acl", "get", "--scope", scope, "--bucket", "plants"], socket: socket, token: token)
        #expect(acl.status == 0, "\(acl.stderr)")
        #expect(acl.stdout.contains("READ_OBJECTS_IN_BUCKET") && acl.stdout.contains("UserID:\(userID)") && acl.stdout.contains("fixed"))
        let grant = try await self.guildctl(
            ["acl", "grant", "--scope", scope, "--bucket", "plants", "READ_OBJECTS_IN_BUCKET=UserID:ANY_AUTHENTICATED_USER"],
            socket: socket,
            token: token
        )
        #expect(grant.status == 0 && grant.stdout.contains("ok"), "\(grant.stderr)")
        let fixed = try await self.guildctl(
            ["acl", "revoke", "--scope", scope, "--bucket", "plants", "READ_OBJECTS_IN_BUCKET=UserID:\(userID)"],
            socket: socket,
            token: token
        )
        #expect(fixed.status == 1 && fixed.stdout.contains("ACL_ENTRY_FIXED"))

        let buckets = try await self.guildctl(["bucket", "list", "--scope", scope], socket: socket, token: token)
        #expect(buckets.stdout.contains("plants") && buckets.stdout.contains("3"))
        let dropped = try await self.guildctl(["bucket", "delete", "--scope", scope, "--bucket", "plants"], socket: socket, token: token)
        #expect(dropped.status == 0, "\(dropped.stderr)")
        let empty = try await self.guildctl(["bucket", "list", "--scope", scope, "--json"], socket: socket, token: token)
        #expect(empty.stdout.contains(#""buckets":[]"#))
    }
}
