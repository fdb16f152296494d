import Foundation
import GuildTestSupport
import Testing

/// `guildctl group send|history|unread|mark-read|recall` against a real daemon.
@Suite(.endToEnd)
struct MessageCommandsTests {
    let ctl = GuildctlTests()

    @Test func messageCommandsRoundTrip() async throws {
        try await self.ctl.withDaemon { d in
            let owner = try await d.register("owner")
            let bob = try await d.register("bob")
            #expect(
                try await d.call(["group", "create", "--name", "Team", "--type", "Work", "--group-id", "team", "--member", bob.id], as: owner).status
                    == 0
            )

            let first = try await d.call(["group", "send", "--group-id", "team", "--at", bob.id, "--priority", "high", "hi bob"], as: owner)
            #expect(first.status == 0 && first.json?["messageSeq"] as? Int == 1 && first.json?["delivered"] as? Bool == true, "\(first)")
            let custom = try await d.call(["group", "send", "--group-id", "team", "--custom", #"{"card":1}"#, "--cloud-custom-data", "x"], as: owner)
            #expect(custom.json?["messageSeq"] as? Int == 2, "\(custom)")
            let unread = try await d.call(["group", "unread"], as: bob)
            #expect(unread.json?["total"] as? Int == 2, "\(unread)")
            #expect(((unread.json?["groups"] as? [[String: Any]])?.first?["mentioned"]) as? Bool == true)

            let history = try await d.call(["group", "history", "--group-id", "team", "--count", "1"], as: bob)
            let page = try #require(history.json?["messages"] as? [[String: Any]], "\(history)")
            #expect(page.count == 1 && page[0]["seq"] as? Int == 2 && history.json?["nextSeq"] as? Int == 1)
            let older = try await d.call(["group", "history", "--group-id", "team", "--seq", "1", "--newer"], as: bob)
            #expect((older.json?["messages"] as? [[String: Any]])?.map { $0["seq"] as? Int } == [1, 2], "\(older)")

            let marked = try await d.call(["group", "mark-read", "--group-id", "team"], as: bob)
            #expect(marked.json?["unread"] as? Int == 0 && marked.json?["mentioned"] as? Bool == false, "\(marked)")

            let msgID = try #require(first.json?["msgID"] as? String)
            let foreign = try await d.call(["group", "recall", "--group-id", "team", "--msg-id", msgID], as: bob)
            #expect(foreign.status != 0 && foreign.stderr.contains("NOT_ALLOWED"), "\(foreign)")
            #expect(try await d.call(["group", "recall", "--group-id", "team", "--msg-id", msgID], as: owner).status == 0)
            let unknown = try await d.call(["group", "recall", "--group-id", "team", "--msg-id", "nope"], as: owner)
            #expect(unknown.status != 0 && unknown.stderr.contains("10030"), "\(unknown)")

            let tooLong = try await d.call(["group", "send", "--group-id", "team", String(repeating: "x", count: 12 * 1024 + 1)], as: owner)
            #expect(tooLong.status != 0 && tooLong.stderr.contains("80002"), "\(tooLong.stderr)")
            let badPriority = try await d.call(["group", "send", "--group-id", "team", "--priority", "urgent", "x"], as: owner)
            #expect(badPriority.status != 0 && badPriority.stderr.contains("--priority"), "\(badPriority.stderr)")
        }
    }
}

extension GuildctlTests {
    /// A user registered through guildctl: their id and access token.
    typealias Login = (id: String, token: String)
    /// A guildctl run: its exit status, its stdout as JSON (nil if it is not), its stderr.
    typealias Outcome = (status: Int32, json: [String: Any]?, stderr: String)

    /// Registers `name` (password `pass`) with `guildctl user register`.
    func register(_ name: String, socket: String) async throws -> Login {
        let result = try await self.guildctl(["user", "register", "--username", name, "--password", "pass", "--json"], socket: socket)
        #expect(result.status == 0, "\(result.stderr)")
        let auth = try self.json(result.stdout)
        return (try #require((auth["user"] as? [String: Any])?["userID"] as? String), try #require(auth["accessToken"] as? String))
    }

    /// guildctl against one running daemon (see ``withDaemon(_:)``).
    struct Daemon {
        let ctl: GuildctlTests
        let socket: String

        /// Registers `name` (password `pass`) with `guildctl user register`.
        func register(_ name: String) async throws -> Login { try await self.ctl.register(name, socket: self.socket) }

        /// Runs guildctl with `--json` as `user`.
        func call(_ arguments: [String], as user: Login) async throws -> Outcome {
            try await self.ctl.call(arguments, as: user, socket: self.socket)
        }
    }

    /// Runs `body` with guildctl against a fresh real daemon.
    func withDaemon(_ body: (Daemon) async throws -> Void) async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let daemon = try await RealDaemon.start(scratch)
        defer { daemon.terminate() }
        try await body(Daemon(ctl: self, socket: scratch.socket))
    }

    /// Runs guildctl with `--json` as `user`.
    func call(_ arguments: [String], as user: Login, socket: String) async throws -> Outcome {
        let result = try await self.guildctl(arguments + ["--json", "--token", user.token], socket: socket)
        return (result.status, try? self.json(result.stdout), result.stderr)
    }
}
