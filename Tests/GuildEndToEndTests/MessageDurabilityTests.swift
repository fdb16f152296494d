import Foundation
import GuildClient
import GuildJSON
import GuildProtocol
import GuildTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Group messages through a real guildd: unread counts, mentions and history survive kill -9 and a restart,
/// a resumed subscription replays what was missed, and bad input gets documented errors.
@Suite(.endToEnd)
struct MessageDurabilityTests {
    @Test func unreadCountsAndHistorySurviveKillNine() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let daemon = try await RealDaemon.start(scratch)
        let owner = try await GuildClient.connect(path: scratch.socket)
        _ = try await owner.call(UserMethods.RegisterPseudo.self, .init(displayName: "owner"))
        let bobClient = try await GuildClient.connect(path: scratch.socket)
        let bob = try await bobClient.call(UserMethods.RegisterPseudo.self, .init(displayName: "bob"))
        _ = try await owner.call(
            "group.create",
            params: ["name": "Club", "groupID": "club", "type": "Public", "members": [.string(bob.user.userID)]]
        )
        let start = try await bobClient.subscribe(groupIDs: ["club"])
        _ = try await owner.sendMessage(groupID: "club", text: "one")
        _ = try await owner.sendMessage(groupID: "club", text: "two, bob", atUserList: [bob.user.userID])
        let third = try await owner.sendMessage(groupID: "club", custom: ["card": 3], priority: .high)
        #expect(third.messageSeq == 3 && third.delivered)
        let marked = try await bobClient.markRead(groupID: "club", seq: 1)
        #expect(marked.unread == 2 && marked.mentioned)
        // Bad input: documented errors, nothing stored.
        do {
            _ = try await owner.call("group.sendMessage", params: ["groupID": "club", "text": "x", "priority": "Urgent"])
            Issue.record("an unknown priority was accepted")
        } catch let error as RPCError {
            #expect(error.code == .invalidParams, "\(error)")
        }
        do {
            _ = try await owner.sendMessage(groupID: "club", text: String(repeating: "x", count: 12 * 1024 + 1))
            Issue.record("an oversized message was accepted")
        } catch let error as RPCError {
            #expect(error.code == .messageTooLong && error.reason == ErrorReason.messageTooLong, "\(error)")
        }

        daemon.signal(SIGKILL)
        _ = await daemon.wait()
        let restarted = try await RealDaemon.start(scratch)
        defer { restarted.terminate() }
        let again = try await GuildClient.connect(path: scratch.socket)
        _ = try await again.call(SessionMethods.Authenticate.self, .init(accessToken: bob.accessToken))
        let counts = try await again.unreadCounts()
        #expect(counts.total == 2 && counts.groups.map(\.groupID) == ["club"])
        #expect(counts.groups.first?.mentioned == true && counts.groups.first?.readSeq == 1)
        let page = try await again.history(groupID: "club")
        #expect(page.messages.map(\.seq) == [3, 2, 1] && page.messages[0].custom == ["card": 3] && page.messages[1].mentionsMe)
        // The subscription resumes after its start: every message and bob's own unreadChanged, once each.
        let resumed = try await again.subscribe(groupIDs: ["club"], since: start.seq)
        var kinds: [String] = []
        for try await event in resumed.events {
            kinds.append(event.kind)
            if kinds.count == 4 { break }
        }
        #expect(kinds == ["newMessage", "newMessage", "newMessage", "unreadChanged"])
        let cleared = try await again.markRead(groupID: "club")
        #expect(cleared.unread == 0 && !cleared.mentioned)
    }
}
