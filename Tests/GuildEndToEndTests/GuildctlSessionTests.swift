import Foundation
import GuildTestSupport
import Testing

/// guildctl's kept sessions and global options, through the real binaries: login, register, pseudo login,
/// logout, whoami, profiles, refresh on expiry, and the credentials file's mode and contents.
@Suite(.endToEnd)
struct GuildctlSessionTests {
    /// Runs guildctl with `XDG_CONFIG_HOME` in the scratch directory.
    func guildctl(
        _ arguments: [String],
        _ scratch: Scratch,
        environment: [String: String] = [:]
    ) async throws
        -> (status: Int32, stdout: String, stderr: String)
    {
        var environment = environment
        environment["XDG_CONFIG_HOME"] = scratch.path + "/config"
        environment["GUILD_TOKEN"] = environment["GUILD_TOKEN"] ?? ""
        environment["GUILD_PROFILE"] = environment["GUILD_PROFILE"] ?? ""
        return try await Child.run(Build.guildctl, arguments, environment: environment)
    }

    func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    /// The credentials file's profiles: profile → socket → login.
    func stored(_ scratch: Scratch) throws -> [String: [String: [String: Any]]] {
        let data = try Data(contentsOf: URL(fileURLWithPath: scratch.path + "/config/guild/credentials.json"))
        let file = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return try #require(file["profiles"] as? [String: [String: [String: Any]]])
    }

    @Test func globalOptionsGoBeforeOrAfterTheSubcommand() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let daemon = try await RealDaemon.start(scratch)
        defer { daemon.terminate() }

        for arguments in [
            ["--socket", scratch.socket, "ping"],
            ["ping", "--socket", scratch.socket],
            ["--socket=\(scratch.socket)", "--json", "ping"],
            ["--json", "call", "--socket", scratch.socket, "system.ping"],
            ["-o", "json", "--socket", scratch.socket, "call", "system.ping", "--", "[]"],
        ] {
            let result = try await self.guildctl(arguments, scratch)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            let text = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(text == "pong" || text == "\"pong\"", "\(arguments)")
        }
        let jsonFirst = try await self.guildctl(["--json", "--socket", scratch.socket, "status"], scratch)
        #expect(try self.json(jsonFirst.stdout)["activation"] as? String == "bound")
        let nested = try await self.guildctl(["--socket", scratch.socket, "--json", "user", "member-of", "--token", "nope"], scratch)
        #expect(nested.status == 4, "\(nested.stderr)")
    }

    @Test func loginKeepsOneSessionPerProfileAndLogoutRevokesIt() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let daemon = try await RealDaemon.start(scratch)
        defer { daemon.terminate() }
        let socket = ["--socket", scratch.socket]

        let register = try await self.guildctl(
            socket + ["register", "--username", "alice", "--password", "s3cret!", "--display-name", "Alice"],
            scratch
        )
        #expect(register.status == 0, "\(register.stderr)")
        #expect(register.stdout.contains("alice"))
        #expect(!register.stdout.contains("gt_"), "a token is printed only when asked for")

        // A second profile logs in as another user, reading the password from stdin.
        // `user register` calls the method only: it keeps nothing.
        _ = try await self.guildctl(socket + ["user", "register", "--username", "bob", "--password", "pw-bob", "--profile", "scratch"], scratch)
        let viaStdin = try await Child.run(
            "/bin/sh",
            [
                "-c", "printf 'pw-bob\\n' | \"$0\" --profile bob login --username bob --password-stdin --socket \"$1\"", Build.guildctl,
                scratch.socket,
            ],
            environment: ["XDG_CONFIG_HOME": scratch.path + "/config", "GUILD_TOKEN": "", "GUILD_PASSWORD": ""]
        )
        #expect(viaStdin.status == 0, "\(viaStdin.stderr)")

        let attributes = try FileManager.default.attributesOfItem(atPath: scratch.path + "/config/guild/credentials.json")
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let directory = try FileManager.default.attributesOfItem(atPath: scratch.path + "/config/guild")
        #expect((directory[.posixPermissions] as? Int) == 0o700)
        let profiles = try self.stored(scratch)
        #expect(Set(profiles.keys) == ["default", "bob"])
        #expect(profiles["default"]?[scratch.socket]?["name"] as? String == "alice")
        #expect(profiles["bob"]?[scratch.socket]?["name"] as? String == "bob")
        let aliceToken = try #require(profiles["default"]?[scratch.socket]?["accessToken"] as? String)

        let alice = try await self.guildctl(socket + ["whoami", "--json"], scratch)
        #expect((try self.json(alice.stdout)["user"] as? [String: Any])?["username"] as? String == "alice")
        let bob = try await self.guildctl(["--profile", "bob"] + socket + ["whoami", "--json"], scratch)
        #expect((try self.json(bob.stdout)["user"] as? [String: Any])?["username"] as? String == "bob")
        let bobByEnvironment = try await self.guildctl(socket + ["whoami", "--json"], scratch, environment: ["GUILD_PROFILE": "bob"])
        #expect((try self.json(bobByEnvironment.stdout)["user"] as? [String: Any])?["username"] as? String == "bob")
        let human = try await self.guildctl(socket + ["whoami"], scratch)
        #expect(human.stdout.contains("user.username:"))
        #expect(!human.stdout.contains("{"), "no JSON in human output")

        // Logout revokes the token on the daemon and forgets it; bob's profile is untouched.
        let logout = try await self.guildctl(socket + ["logout"], scratch)
        #expect(logout.status == 0, "\(logout.stderr)")
        let revoked = try await self.guildctl(socket + ["whoami", "--token", aliceToken], scratch)
        #expect(revoked.status == 4)
        #expect(revoked.stderr.contains("INVALID_TOKEN"))
        let anonymous = try await self.guildctl(socket + ["whoami", "--json"], scratch)
        #expect(try self.json(anonymous.stdout)["user"] == nil)
        #expect(try self.stored(scratch)["default"] == nil)
        let bobStill = try await self.guildctl(socket + ["whoami", "--json", "--profile", "bob"], scratch)
        #expect((try self.json(bobStill.stdout)["user"] as? [String: Any])?["username"] as? String == "bob")
        let again = try await self.guildctl(socket + ["logout"], scratch)
        #expect(again.status == 4)

        // A pseudo login: a token that never expires, shown only with --show-token.
        let pseudo = try await self.guildctl(socket + ["login", "--pseudo", "--display-name", "Guest", "--show-token"], scratch)
        #expect(pseudo.status == 0, "\(pseudo.stderr)")
        let pseudoToken = try #require(try self.stored(scratch)["default"]?[scratch.socket]?["accessToken"] as? String)
        #expect(pseudo.stdout.contains(pseudoToken))
        #expect(pseudo.stdout.contains("never"))
    }

    @Test func anExpiredAccessTokenIsRefreshedOnceAndStored() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let daemon = try await RealDaemon.start(scratch, ["--token-lifetime", "1"])
        defer { daemon.terminate() }
        let socket = ["--socket", scratch.socket]

        let login = try await self.guildctl(socket + ["register", "--username", "carol", "--password", "pw-carol", "--json"], scratch)
        let auth = try self.json(login.stdout)
        let first = try #require(auth["accessToken"] as? String)
        let expiresAt = try #require(auth["expiresAt"] as? Double)
        // The daemon's token lifetime is whole seconds of wall-clock time: wait until it has passed.
        while Date().timeIntervalSince1970 * 1000 <= expiresAt + 50 { try await Task.sleep(for: .milliseconds(100)) }
        let expired = try await self.guildctl(socket + ["whoami", "--token", first], scratch)
        #expect(expired.status == 4, "the old token itself no longer works")

        let whoami = try await self.guildctl(socket + ["whoami", "--json"], scratch)
        #expect(whoami.status == 0, "\(whoami.stderr)")
        #expect((try self.json(whoami.stdout)["user"] as? [String: Any])?["username"] as? String == "carol")
        let renewed = try #require(try self.stored(scratch)["default"]?[scratch.socket]?["accessToken"] as? String)
        #expect(renewed != first)

        // Once the refresh token is used up elsewhere, the stored login is forgotten with a clear message.
        let stored = try #require(try self.stored(scratch)["default"]?[scratch.socket])
        let refresh = try #require(stored["refreshToken"] as? String)
        let renewedExpiry = try #require(stored["expiresAt"] as? Double)
        let elsewhere = try await self.guildctl(socket + ["user", "refresh", "--refresh-token", refresh, "--json"], scratch)
        #expect(elsewhere.status == 0, "\(elsewhere.stderr)")
        while Date().timeIntervalSince1970 * 1000 <= renewedExpiry + 50 { try await Task.sleep(for: .milliseconds(100)) }
        let lost = try await self.guildctl(socket + ["whoami"], scratch)
        #expect(lost.status == 4)
        #expect(lost.stderr.contains("log in again"))
        #expect(try self.stored(scratch)["default"] == nil)
    }
}
