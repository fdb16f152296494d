import Foundation
import GuildClient
import GuildJSON
import GuildProtocol
import GuildTestSupport
import Testing

/// `guildctl chat GROUP` in a real terminal (a detached tmux session): history on entry, the status line,
/// typed lines sent, others' messages shown live, mentions flagged, `/quit` leaves.
@Suite(.endToEnd)
struct ChatCommandTests {
    @Test func chatUnderTmux() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let daemon = try await RealDaemon.start(scratch)
        defer { daemon.terminate() }
        let owner = try await GuildClient.connect(path: scratch.socket)
        let ownerID = try await owner.call(UserMethods.RegisterPseudo.self, .init(displayName: "owner")).user.userID
        let bob = try await GuildClient.connect(path: scratch.socket)
        let bobAuth = try await bob.call(UserMethods.RegisterPseudo.self, .init(displayName: "bob"))
        _ = try await owner.call(
            "group.create",
            params: ["name": "Team", "groupID": "team", "type": "Work", "members": [.string(bobAuth.user.userID)]]
        )
        _ = try await owner.call(
            "group.create",
            params: ["name": "Other", "groupID": "other", "type": "Work", "members": [.string(bobAuth.user.userID)]]
        )
        _ = try await owner.sendMessage(groupID: "team", text: "before you came")
        _ = try await owner.sendMessage(groupID: "other", text: "elsewhere")

        let server = "guild-chat-\(getpid())-\(Int.random(in: 0..<1_000_000))"
        func tmux(_ arguments: [String]) async throws -> String {
            let result = try await Child.run("/usr/bin/tmux", ["-L", server] + arguments)
            #expect(result.status == 0, "tmux \(arguments): \(result.stderr)")
            return result.stdout
        }
        func screen(contains text: String) async throws -> String {
            var last = ""
            for _ in 0..<200 {
                // The session may not be up yet: a failed capture is retried.
                last = try await Child.run("/usr/bin/tmux", ["-L", server, "capture-pane", "-p", "-t", "chat"]).stdout
                if last.contains(text) { return last }
                try await Task.sleep(for: .milliseconds(50))
            }
            Issue.record("the chat never showed \(text):\n\(last)")
            return last
        }
        let command = [Build.guildctl, "chat", "team", "--socket", scratch.socket, "--token", bobAuth.accessToken].joined(separator: " ")
        // Started without waiting: the tmux client's exit is not seen while the server it forked runs on.
        _ = try await Child("/usr/bin/tmux", ["-L", server, "new-session", "-d", "-s", "chat", "-x", "160", "-y", "40", command])
        let exited = try await self.converse(
            tmux: tmux,
            screen: { try await screen(contains: $0) },
            server: server,
            owner: owner,
            ownerID: ownerID,
            bob: bob,
            bobID: bobAuth.user.userID
        )
        _ = try? await Child.run("/usr/bin/tmux", ["-L", server, "kill-server"])
        #expect(exited, "guildctl chat did not exit on /quit")
    }

    /// Types and reads in the chat; whether it exited on /quit.
    private func converse(
        tmux: (_ arguments: [String]) async throws -> String,
        screen: (_ text: String) async throws -> String,
        server: String,
        owner: GuildClient,
        ownerID: String,
        bob: GuildClient,
        bobID: String
    ) async throws -> Bool {
        _ = try await screen("#1 \(ownerID): before you came")
        _ = try await screen("-- team | unread elsewhere: 1 --")
        _ = try await tmux(["send-keys", "-t", "chat", "hello from bob", "Enter"])
        _ = try await screen("#2 \(bobID): hello from bob")
        _ = try await owner.sendMessage(groupID: "team", text: "hi bob", atUserList: [bobID])
        _ = try await screen("#3 \(ownerID) @me: hi bob")
        let page = try await bob.history(groupID: "team")
        #expect(page.messages.map(\.text) == ["hi bob", "hello from bob", "before you came"])
        // The chat marks what it showed read.
        let counts = try await bob.unreadCounts(groupID: "team")
        #expect(counts.groups.first?.unread == 0)
        _ = try await tmux(["send-keys", "-t", "chat", "/quit", "Enter"])
        for _ in 0..<100 {
            let sessions = try await Child.run("/usr/bin/tmux", ["-L", server, "has-session", "-t", "chat"])
            if sessions.status != 0 { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        return false
    }
}
