import Foundation
import GuildClient
import GuildJSON
import GuildProtocol
import GuildTestSupport
import Testing

/// `clients/python/examples/echo_bot.py` against a real daemon: it answers a mention (sent before it started,
/// replayed with `--since`) and ignores a message that does not mention it.
@Suite(.endToEnd)
struct EchoBotExampleTests {
    @Test func echoBotAnswersMentions() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let daemon = try await RealDaemon.start(scratch)
        defer { daemon.terminate() }
        let owner = try await GuildClient.connect(path: scratch.socket)
        let me = try await owner.call(UserMethods.RegisterPseudo.self, .init(displayName: "owner"))
        let botClient = try await GuildClient.connect(path: scratch.socket)
        let bot = try await botClient.call(UserMethods.RegisterPseudo.self, .init(displayName: "bot"))
        _ = try await owner.call("group.create", params: ["name": "Bots", "groupID": "bots", "type": "Work", "members": [.string(bot.user.userID)]])
        _ = try await owner.sendMessage(groupID: "bots", text: "nobody asked")
        let asked = try await owner.sendMessage(groupID: "bots", text: "ping", atUserList: [bot.user.userID])
        let result = try await Child.run(
            "/usr/bin/env",
            [
                "python3", "examples/echo_bot.py", "--socket", scratch.socket, "--token", bot.accessToken, "--group", "bots", "--since", "0",
                "--count", "1",
            ],
            currentDirectory: PythonClientTests.clientDirectory
        )
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("answered \(asked.msgID) in bots with seq 3"), "\(result.stdout)")
        let page = try await owner.history(groupID: "bots")
        #expect(page.messages.map(\.text) == ["echo: ping", "ping", "nobody asked"])
        #expect(page.messages.first?.sender == bot.user.userID && page.messages.first?.atUserList == [me.user.userID])
        #expect(page.messages.first?.mentionsMe == true)
    }
}
