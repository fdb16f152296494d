import GRDB
import GuildJSON
import GuildProtocol
import GuildTestSupport
import Synchronization
import Testing

@testable import GuildCore
@testable import GuildStore

/// Group messages through the real store with a clock the test moves: the type table's history and unread
/// rows for every type, retention, recall within and after 2 minutes, mentions, receive options, rate limits,
/// AVChatRoom priorities and bad input.
struct GroupMessageTests {
    typealias World = IMGroupServiceTests.World

    // MARK: - the type table: history before joining, unread counts
    @Test(arguments: [GroupType.work, .public, .meeting, .community, .avChatRoom])
    func typeTableRows(type: GroupType) async throws {
        let world = try await World()
        let owner = try await world.user("owner")
        let early = try await world.user("early")
        let late = try await world.user("late")
        let g = type == .community ? "@TGS#_g" : "g"
        _ = try await world.groups.create(caller: owner, name: "g", groupID: g, type: type, members: [])
        try await world.add(early, to: g, type)
        _ = try await world.send(owner, g, "one")
        _ = try await world.send(owner, g, "two")
        try await world.add(late, to: g, type)
        let three = try await world.send(owner, g, "three")
        #expect(three.delivered)
        let policy = GroupPolicy.of(type)
        if type == .avChatRoom {
            await #expect(throws: GuildError(.unsupported, "")) { try await world.history(late, g) }
        } else {
            #expect(three.messageSeq == 3)
            let seen = try await world.history(late, g).messages.map(\.text)
            #expect(seen == (policy.preJoinHistory ? ["three", "two", "one"] : ["three"]), "\(type)")
            #expect(try await world.history(early, g).messages.map(\.text) == ["three", "two", "one"])
        }
        // Unread: only the types with unread counts count, and only messages since joining.
        #expect(try await world.unread(late, g).unread == (policy.unreadCounts ? 1 : 0), "\(type)")
        #expect(try await world.unread(early, g).unread == (policy.unreadCounts ? 3 : 0), "\(type)")
        #expect(try await world.unread(owner, g).unread == 0, "the sender's own messages do not count")
        #expect(type == .meeting || type == .avChatRoom ? !policy.unreadCounts : policy.unreadCounts)
        #expect(type == .meeting ? policy.preJoinHistory : !policy.preJoinHistory)
    }

    // MARK: - history paging

    @Test func historyPagesBySeqBothWays() async throws {
        let world = try await World()
        let owner = try await world.user("owner")
        _ = try await world.groups.create(caller: owner, name: "g", groupID: "g", type: .meeting, members: [])
        for index in 1...45 { _ = try await world.send(owner, "g", "m\(index)") }
        let first = try await world.history(owner, "g")
        #expect(first.messages.map(\.seq) == Array((26...45).reversed()))
        #expect(first.nextSeq == 25 && !first.isFinished)
        let second = try await world.history(owner, "g", seq: first.nextSeq)
        #expect(second.messages.map(\.seq) == Array((6...25).reversed()))
        let third = try await world.history(owner, "g", seq: second.nextSeq)
        #expect(third.messages.map(\.seq) == Array((1...5).reversed()) && third.isFinished && third.nextSeq == 0)
        let newer = try await world.history(owner, "g", seq: 40, .newer, count: 3)
        #expect(newer.messages.map(\.seq) == [40, 41, 42] && newer.nextSeq == 43)
        let tail = try await world.history(owner, "g", seq: 44, .newer)
        #expect(tail.messages.map(\.seq) == [44, 45] && tail.isFinished)
        // Out of bounds: clear errors.
        for (seq, count) in [(Int64(0), 20), (46, 20), (-1, 20), (10, 0), (10, 21)] {
            await #expect(throws: GuildError(.imInvalidParameters, "")) { try await world.history(owner, "g", seq: seq, count: count) }
        }
        let stranger = try await world.user("stranger")
        await #expect(throws: GuildError(.notAMember, "")) { try await world.history(stranger, "g") }
    }

    // MARK: - retention

    @Test func retentionDeletesOldMessagesAndTheirEvents() async throws {
        let world = try await World(messageOptions: MessageOptions(retentionMilliseconds: 7 * 86_400_000))
        let owner = try await world.user("owner")
        _ = try await world.groups.create(caller: owner, name: "g", groupID: "g", type: .meeting, members: [])
        _ = try await world.send(owner, "g", "old secret")
        _ = try await world.send(owner, "g", "old secret too")
        _ = try await world.send(owner, "g", "old secret as well")
        world.clock.advance(seconds: 6 * 86_400)
        _ = try await world.send(owner, "g", "recent")
        world.clock.advance(seconds: 86_400 + 1)
        // In batches of two: the messages and their events in two transactions each, with a rest after each
        // full batch (one for the events, one for the messages) and none after the last.
        let rests = Mutex(0)
        #expect(try await world.groups.pruneMessages(batchSize: 2, pause: { _ in rests.withLock { $0 += 1 } }) == 3)
        #expect(rests.withLock { $0 } == 2)
        #expect(try await world.history(owner, "g").messages.map(\.text) == ["recent"])
        // Gone from storage, not just hidden: no row and no event holds the text any more.
        let leftovers = try await world.temp.store.readDatabase { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM group_message WHERE body LIKE '%old secret%'")! + Int.fetchOne(
                db,
                sql: "SELECT count(*) FROM event WHERE CAST(body AS TEXT) LIKE '%old secret%'"
            )!
        }
        #expect(leftovers == 0)
        #expect(try await world.groups.pruneMessages() == 0)
    }

    // MARK: - recall

    @Test func recallWithinTwoMinutesByTheSenderAnyTimeByManagers() async throws {
        let world = try await World()
        let owner = try await world.user("owner")
        let bob = try await world.user("bob")
        let carol = try await world.user("carol")
        _ = try await world.groups.create(
            caller: owner,
            name: "g",
            groupID: "g",
            type: .public,
            members: [.init(userID: bob.userID), .init(userID: carol.userID)]
        )
        let first = try await world.send(bob, "g", "oops")
        world.clock.advance(seconds: 119)
        try await world.groups.recallMessage(caller: bob, groupID: "g", msgID: first.msgID)
        let second = try await world.send(bob, "g", "late")
        world.clock.advance(seconds: 121)
        await #expect(throws: GuildError(.recallTimeLimit, "")) {
            try await world.groups.recallMessage(caller: bob, groupID: "g", msgID: second.msgID)
        }
        await #expect(throws: GuildError(.notAllowed, "")) { try await world.groups.recallMessage(caller: carol, groupID: "g", msgID: second.msgID) }
        try await world.groups.recallMessage(caller: owner, groupID: "g", msgID: second.msgID)
        await #expect(throws: GuildError(.messageNotFound, "")) {
            try await world.groups.recallMessage(caller: owner, groupID: "g", msgID: second.msgID)
        }
        await #expect(throws: GuildError(.messageNotFound, "")) { try await world.groups.recallMessage(caller: owner, groupID: "g", msgID: "nope") }
        let page = try await world.history(carol, "g").messages
        #expect(page.map(\.revoked) == [true, true] && page.allSatisfy { $0.text == nil })
        let revoked = world.events.all.filter { $0.event.kind == .messageRevoked }
        #expect(revoked.map { $0.event.changes?["msgID"] } == [.string(first.msgID), .string(second.msgID)])
        let bodies = try await world.temp.store.readDatabase { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM event WHERE CAST(body AS TEXT) LIKE '%oops%' OR CAST(body AS TEXT) LIKE '%late%'")!
        }
        #expect(bodies == 0, "the newMessage events lost their bodies too")
    }

    // MARK: - unread, mentions, receive options

    @Test func unreadMentionsAndReceiveOptions() async throws {
        let world = try await World()
        let owner = try await world.user("owner")
        let bob = try await world.user("bob")
        let quiet = try await world.user("quiet")
        let deaf = try await world.user("deaf")
        let members = [bob, quiet, deaf].map { GroupService.InitialMember(userID: $0.userID) }
        _ = try await world.groups.create(caller: owner, name: "g", groupID: "g", type: .work, members: members)
        try await world.groups.setReceiveOption(caller: quiet, groupID: "g", option: .receiveNotNotify)
        try await world.groups.setReceiveOption(caller: deaf, groupID: "g", option: .notReceive)
        _ = try await world.send(owner, "g", "hello")
        _ = try await world.send(owner, "g", "hey bob", at: [bob.userID])
        _ = try await world.send(owner, "g", "more")
        var count = try await world.unread(bob, "g")
        #expect(count.unread == 3 && count.mentioned && !count.badgeOnly)
        #expect(try await world.history(bob, "g").messages.map { $0.mentions(bob.userID) } == [false, true, false])
        let quietCount = try await world.unread(quiet, "g")
        #expect(quietCount.unread == 3 && quietCount.badgeOnly && !quietCount.mentioned)
        #expect(try await world.unread(deaf, "g").unread == 0)
        // markRead up to 1 keeps the mention; up to the end clears it.
        count = try await world.groups.markRead(caller: bob, groupID: "g", seq: 1)
        #expect(count.unread == 2 && count.mentioned)
        count = try await world.groups.markRead(caller: bob, groupID: "g", seq: nil)
        #expect(count.unread == 0 && !count.mentioned && count.readSeq == 3)
        // Own messages sent while behind are not counted; all-mentions flag everyone.
        _ = try await world.send(owner, "g", "all of you", at: [MessageBody.mentionAll])
        _ = try await world.send(bob, "g", "mine")
        count = try await world.unread(bob, "g")
        #expect(count.unread == 1 && count.mentioned)
        let all = try await world.groups.unreadCounts(caller: quiet, groupID: nil)
        #expect(all.map(\.groupID) == ["g"] && all[0].unread == 5)
        let changed = world.events.all.filter { $0.event.kind == .unreadChanged }
        #expect(changed.count == 2 && changed.allSatisfy { $0.event.namedRecipients == [bob.userID] })
        await #expect(throws: GuildError(.imInvalidParameters, "")) { try await world.groups.markRead(caller: bob, groupID: "g", seq: 99) }
    }

    // MARK: - members who left

    @Test func kickedAndQuitMembersGetNothingLater() async throws {
        let world = try await World()
        let owner = try await world.user("owner")
        let kicked = try await world.user("kicked")
        let quitter = try await world.user("quitter")
        let members = [kicked, quitter].map { GroupService.InitialMember(userID: $0.userID) }
        _ = try await world.groups.create(caller: owner, name: "g", groupID: "g", type: .public, members: members)
        _ = try await world.send(owner, "g", "before")
        _ = try await world.groups.removeMembers(caller: owner, groupID: "g", userIDs: [kicked.userID])
        try await world.groups.quit(caller: quitter, groupID: "g")
        _ = try await world.send(owner, "g", "after")
        for user in [kicked, quitter] {
            let replayed = try await world.temp.store.replay(userID: user.userID, after: 0, through: Int64.max, limit: 1000)
            let texts = replayed.compactMap { String(decoding: $0.json, as: UTF8.self).contains("\"after\"") ? $0.seq : nil }
            #expect(texts.isEmpty)
            #expect(replayed.contains { String(decoding: $0.json, as: UTF8.self).contains("\"before\"") })
            await #expect(throws: GuildError(.notAMember, "")) { try await world.history(user, "g") }
            await #expect(throws: GuildError(.notAMember, "")) { try await world.unread(user, "g") }
        }
    }

    // MARK: - rates

    @Test func senderRateLimitGives10023() async throws {
        let world = try await World(messageOptions: MessageOptions(messagesPerUserPerSecond: 3))
        let owner = try await world.user("owner")
        _ = try await world.groups.create(caller: owner, name: "g", groupID: "g", type: .work, members: [])
        for _ in 0..<3 { _ = try await world.send(owner, "g", "x") }
        await #expect(throws: GuildError(.sendRateLimited, "")) { try await world.send(owner, "g", "x") }
        world.clock.advance(seconds: 1)
        #expect(try await world.send(owner, "g", "x").messageSeq == 4)
    }

    /// 200 messages offered to one AVChatRoom gate window (20 High, 30 Normal, 60 Low, 90 Lowest) with room
    /// for 40: exactly 40 go out, every High and then Normal in arrival order; the rest are discarded. The
    /// window ends when all 200 wait in it, so a busy machine cannot spread them over several.
    @Test func liveRoomGateKeepsHigherPrioritiesUnderItsRate() async throws {
        let windows = ManualWindows()
        let gate = LiveRoomGate(perWindow: 40, window: .seconds(1), windowEnd: windows.end(after:))
        let plan = Self.offeredPriorities.shuffled()
        let outcomes = try await withThrowingTaskGroup(of: (MessagePriority, Bool).self) { group in
            for priority in plan { group.addTask { (priority, await gate.admit(groupID: "live", priority: priority)) } }
            try await Self.endWindow(windows, when: { gate.waiting(groupID: "live") == plan.count })
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let delivered = outcomes.filter(\.1).map(\.0)
        #expect(delivered.count == 40)
        #expect(delivered.filter { $0 == .high }.count == 20 && delivered.filter { $0 == .normal }.count == 20)
        #expect(gate.waiting(groupID: "live") == 0)
        // Another room has a window of its own, and a window under its rate discards nothing.
        async let other = gate.admit(groupID: "other", priority: .lowest)
        try await Self.endWindow(windows, when: { gate.waiting(groupID: "other") == 1 })
        #expect(await other)
    }

    /// 20 High, 30 Normal, 60 Low and 90 Lowest messages.
    static let offeredPriorities: [MessagePriority] =
        Array(repeating: .high, count: 20) + Array(repeating: .normal, count: 30) + Array(repeating: .low, count: 60)
        + Array(repeating: .lowest, count: 90)

    /// Ends the open window once `ready` holds and its window waits for its end (the minute only catches a hang).
    static func endWindow(_ windows: ManualWindows, when ready: () -> Bool) async throws {
        try #require(try await Eventually.until(every: .milliseconds(1)) { ready() && windows.waiting == 1 })
        windows.endAll()
    }

    /// The same 200 messages sent by 10 members of an AVChatRoom into one window with room for 40: exactly 40
    /// are delivered, every High among them, seqs gap-free over the delivered ones; discarded ones get seq 0,
    /// and nothing is kept for replay.
    @Test func avChatRoomSendsThroughItsGate() async throws {
        let windows = ManualWindows()
        let world = try await World(
            messageOptions: MessageOptions(messagesPerUserPerSecond: 1000, liveRoomMessagesPerSecond: 40, liveRoomWindowMilliseconds: 1000),
            liveRoomWindows: windows
        )
        let owner = try await world.user("owner")
        _ = try await world.groups.create(caller: owner, name: "live", groupID: "live", type: .avChatRoom, members: [])
        var senders: [Caller] = []
        for index in 0..<10 {
            let user = try await world.user("sender\(index)")
            _ = try await world.groups.join(caller: user, groupID: "live", message: "")
            senders.append(user)
        }
        let plan = Self.offeredPriorities.shuffled()
        let outcomes = try await withThrowingTaskGroup(of: (MessagePriority, SentMessage).self) { group in
            for (index, priority) in plan.enumerated() {
                let sender = senders[index % senders.count]
                group.addTask { (priority, try await world.send(sender, "live", "m\(index)", priority: priority)) }
            }
            try await Self.endWindow(windows, when: { world.groups.liveRoomGate.waiting(groupID: "live") == plan.count })
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let delivered = outcomes.filter { $0.1.delivered }
        #expect(delivered.count == 40)
        #expect(delivered.filter { $0.0 == .high }.count == 20)
        #expect(Set(delivered.map(\.1.messageSeq)) == Set(1...Int64(delivered.count)))
        #expect(outcomes.filter { !$0.1.delivered }.allSatisfy { $0.1.messageSeq == 0 })
        #expect(world.events.all.filter { $0.event.kind == .newMessage }.count == delivered.count)
        // Live only: nothing for replay, nothing in history.
        let replayed = try await world.temp.store.replay(userID: senders[0].userID, after: 0, through: Int64.max, limit: 1000)
        #expect(!replayed.contains { $0.kind == "newMessage" })
    }

    // MARK: - bad input

    @Test func badInputIsRefusedAndNothingIsStoredHalfWay() async throws {
        let world = try await World()
        let owner = try await world.user("owner")
        let stranger = try await world.user("stranger")
        _ = try await world.groups.create(caller: owner, name: "g", groupID: "g", type: .work, members: [])
        let big = String(repeating: "x", count: GroupService.maximumMessageBytes + 1)
        await #expect(throws: GuildError(.messageTooLong, "")) { try await world.send(owner, "g", big) }
        await #expect(throws: GuildError(.messageTooLong, "")) {
            try await world.groups.sendMessage(caller: owner, .init(groupID: "g", text: "a", cloudCustomData: String(big.dropFirst())))
        }
        await #expect(throws: GuildError(.imInvalidParameters, "")) { try await world.send(owner, "g", "") }
        await #expect(throws: GuildError(.imInvalidParameters, "")) {
            try await world.groups.sendMessage(caller: owner, .init(groupID: "g", text: "a", custom: ["k": 1]))
        }
        await #expect(throws: GuildError(.imInvalidParameters, "")) { try await world.groups.sendMessage(caller: owner, .init(groupID: "g")) }
        await #expect(throws: GuildError(.imInvalidParameters, "")) { try await world.send(owner, "g", "hi", at: [stranger.userID]) }
        await #expect(throws: GuildError(.imInvalidParameters, "")) {
            try await world.send(owner, "g", "hi", at: (0...30).map { "u\($0)" })
        }
        await #expect(throws: GuildError(.notAMember, "")) { try await world.send(stranger, "g", "hi") }
        // Nothing was stored: the next message is seq 1, and a custom body round-trips.
        let sent = try await world.groups.sendMessage(caller: owner, .init(groupID: "g", custom: ["k": [1, "two"]], cloudCustomData: "d"))
        #expect(sent.messageSeq == 1)
        let page = try await world.history(owner, "g").messages
        #expect(page.count == 1 && page[0].body?.custom == ["k": [1, "two"]] && page[0].body?.cloudCustomData == "d" && page[0].priority == .normal)
    }
}

extension IMGroupServiceTests.World {
    /// Adds `user` to a group the way its type allows (an app admin adds where members may not invite).
    func add(_ user: Caller, to groupID: String, _ type: GroupType) async throws {
        if [.meeting, .avChatRoom, .community].contains(type) {
            _ = try await self.groups.join(caller: user, groupID: groupID, message: "")
        } else {
            _ = try await self.groups.addMembers(caller: self.admin, groupID: groupID, userIDs: [user.userID])
        }
    }

    func send(
        _ caller: Caller,
        _ groupID: String,
        _ text: String,
        priority: MessagePriority? = nil,
        at: [String]? = nil
    )
        async throws -> SentMessage
    {
        try await self.groups.sendMessage(caller: caller, .init(groupID: groupID, text: text, priority: priority, atUserList: at))
    }

    func history(
        _ caller: Caller,
        _ groupID: String,
        seq: Int64? = nil,
        _ direction: HistoryPage.Direction = .older,
        count: Int? = nil
    )
        async throws -> HistoryPage
    {
        try await self.groups.history(caller: caller, groupID: groupID, seq: seq, direction: direction, count: count)
    }

    func unread(_ caller: Caller, _ groupID: String) async throws -> UnreadCount {
        try #require(try await self.groups.unreadCounts(caller: caller, groupID: groupID).first)
    }
}

extension Caller {
    /// The caller's user id (a session caller).
    fileprivate var userID: String { self.session!.user.id }
}
