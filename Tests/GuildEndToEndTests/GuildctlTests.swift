import Foundation
import GuildTestSupport
import Testing

/// guildctl against a real daemon: the seed's user flows, human and JSON output, exit codes.
@Suite(.endToEnd)
struct GuildctlTests {
    func guildctl(
        _ arguments: [String],
        socket: String,
        environment: [String: String] = [:]
    ) async throws
        -> (status: Int32, stdout: String, stderr: String)
    {
        try await Child.run(Build.guildctl, arguments + ["--socket", socket], environment: environment)
    }

    func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test func registerLoginWhoamiAndLogout() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let daemon = try await RealDaemon.start(scratch)
        defer { daemon.terminate() }

        let ping = try await self.guildctl(["ping"], socket: scratch.socket)
        #expect(ping.status == 0)
        #expect(ping.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "pong")

        let registered = try await self.guildctl(
            ["user", "register", "--username", "alice", "--password", "s3cret!", "--display-name", "Alice", "--json"],
            socket: scratch.socket
        )
        #expect(registered.status == 0, "\(registered.stderr)")
        let auth = try self.json(registered.stdout)
        let token = try #require(auth["accessToken"] as? String)
        let userID = try #require((auth["user"] as? [String: Any])?["userID"] as? String)

        let whoami = try await self.guildctl(["session", "whoami", "--json"], socket: scratch.socket, environment: ["GUILD_TOKEN": token])
        #expect(whoami.status == 0, "\(whoami.stderr)")
        #expect((try self.json(whoami.stdout)["user"] as? [String: Any])?["userID"] as? String == userID)

        let login = try await self.guildctl(
            ["user", "login", "--username", "alice", "--json"],
            socket: scratch.socket,
            environment: ["GUILD_PASSWORD": "s3cret!"]
        )
        #expect(login.status == 0, "\(login.stderr)")

        let logout = try await self.guildctl(["session", "logout", "--token", token], socket: scratch.socket)
        #expect(logout.status == 0, "\(logout.stderr)")
        let revoked = try await self.guildctl(["session", "whoami", "--token", token], socket: scratch.socket)
        #expect(revoked.status == 4)
        #expect(revoked.stderr.contains("INVALID_TOKEN"))
    }

    @Test func exitCodesFollowTheErrors() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let daemon = try await RealDaemon.start(scratch)
        defer { daemon.terminate() }
        _ = try await self.guildctl(["user", "register", "--username", "bob", "--password", "pass"], socket: scratch.socket)

        let duplicate = try await self.guildctl(["user", "register", "--username", "BOB", "--password", "pass"], socket: scratch.socket)
        #expect(duplicate.status == 1)
        #expect(duplicate.stderr.contains("USER_ALREADY_EXISTS"))

        let wrongPassword = try await self.guildctl(["user", "login", "--username", "bob", "--password", "nope"], socket: scratch.socket)
        #expect(wrongPassword.status == 4)

        let invalid = try await self.guildctl(["user", "register", "--username", "ab", "--password", "pass"], socket: scratch.socket)
        #expect(invalid.status == 2)
        #expect(invalid.stderr.contains("username"))

        let unknown = try await self.guildctl(["call", "no.such.method"], socket: scratch.socket)
        #expect(unknown.status == 3)

        let badJSON = try await self.guildctl(["call", "system.ping", "{not json"], socket: scratch.socket)
        #expect(badJSON.status == 64)

        let noDaemon = try await Child.run(Build.guildctl, ["ping", "--socket", scratch.path + "/missing.sock"])
        #expect(noDaemon.status == 69)
    }

    @Test func rawCallsAndMethodDiscovery() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let daemon = try await RealDaemon.start(scratch)
        defer { daemon.terminate() }
        let subtract = try await self.guildctl(["call", "subtract", "[42, 23]", "--json"], socket: scratch.socket)
        #expect(subtract.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "19")
        let methods = try await self.guildctl(["methods", "--json"], socket: scratch.socket)
        let names = try #require(try JSONSerialization.jsonObject(with: Data(methods.stdout.utf8)) as? [String])
        #expect(names.contains("system.ping"))
        #expect(names.contains("user.register"))
        let status = try await self.guildctl(["status"], socket: scratch.socket)
        #expect(status.stdout.split(separator: "\n").contains { $0.hasPrefix("activation:") && $0.hasSuffix(" bound") })
    }
}
