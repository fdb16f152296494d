import Foundation
import GuildClient
import GuildCore
import GuildJSON
import GuildProtocol
import GuildServer
import GuildStore
import GuildTestSupport
import Testing

/// Durable, resumable subscriptions: visibility, replay then live with no gap or duplicate, lag isolation.
@Suite(.timeLimit(.minutes(10)))
struct EventTests {
    /// A connected pseudo user.
    struct Member {
        let client: GuildClient
        let id: String
        let token: String

        static func join(_ socket: String, _ name: String) async throws -> Member {
            let client = try await GuildClient.connect(path: socket)
            let auth = try await client.call(UserMethods.RegisterPseudo.self, .init(displayName: name))
            return Member(client: client, id: auth.user.userID, token: auth.accessToken)
        }
    }

    /// Takes `count` events from a subscription, failing after a timeout.
    func take(_ count: Int, from subscription: EventSubscription, timeout: Duration = .seconds(60)) async throws -> [GuildEvent] {
        try await withThrowingTaskGroup(of: [GuildEvent].self) { group in
            group.addTask {
                var events: [GuildEvent] = []
                for try await event in subscription.events {
                    events.append(event)
                    if events.count == count { break }
                }
                return events
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                return []
            }
            let first = try await group.next() ?? []
            group.cancelAll()
            return first
        }
    }

    @Test func membersSeeTheirGroupsEventsAndOthersDoNot() async throws {
        try await TestDaemon.run { socket, _ in
            let alice = try await Member.join(socket, "alice")
            let bob = try await Member.join(socket, "bob")
            let carol = try await Member.join(socket, "carol")
            let aliceEvents = try await alice.client.subscribe()
            let bobEvents = try await bob.client.subscribe()
            let carolEvents = try await carol.client.subscribe()

            let created = try await alice.client.call(
                GroupMethods.Create.self,
                .init(name: "Club", groupID: "club", members: [.init(userID: bob.id)])
            )
            #expect(created.group.memberCount == 2)
            _ = try await alice.client.call(GroupMethods.Rename.self, .init(groupID: "club", name: "Club 2"))
            _ = try await alice.client.call(GroupMethods.RemoveMembers.self, .init(groupID: "club", userIDs: [bob.id]))
            _ = try await alice.client.call(GroupMethods.Rename.self, .init(groupID: "club", name: "Club 3"))

            let seenByAlice = try await self.take(4, from: aliceEvents)
            #expect(seenByAlice.map(\.kind) == ["groupCreated", "groupInfoChanged", "memberKicked", "groupInfoChanged"])
            #expect(seenByAlice.map(\.seq) == seenByAlice.map(\.seq).sorted())
            // Bob sees everything up to and including his own removal, and nothing after.
            let seenByBob = try await self.take(3, from: bobEvents)
            #expect(seenByBob.map(\.kind) == ["groupCreated", "groupInfoChanged", "memberKicked"])
            #expect(seenByBob.last?.users == [bob.id])
            let nothingForCarol = try await self.take(1, from: carolEvents, timeout: .milliseconds(300))
            #expect(nothingForCarol.isEmpty)
            let nothingMoreForBob = try await self.take(1, from: bobEvents, timeout: .milliseconds(300))
            #expect(nothingMoreForBob.isEmpty)
        }
    }

    @Test func quitFromGroupGoesToTheQuitterOnly() async throws {
        try await TestDaemon.run { socket, _ in
            let alice = try await Member.join(socket, "alice")
            let bob = try await Member.join(socket, "bob")
            _ = try await alice.client.call(GroupMethods.Create.self, .init(name: "G", groupID: "g", members: [.init(userID: bob.id)]))
            let aliceEvents = try await alice.client.subscribe(kinds: ["memberLeave", "quitFromGroup"])
            let bobEvents = try await bob.client.subscribe(kinds: ["memberLeave", "quitFromGroup"])
            _ = try await bob.client.call(GroupMethods.RemoveMembers.self, .init(groupID: "g", userIDs: [bob.id]))
            #expect(try await self.take(2, from: bobEvents).map(\.kind) == ["memberLeave", "quitFromGroup"])
            #expect(try await self.take(2, from: aliceEvents, timeout: .milliseconds(500)).map(\.kind) == [])
            // Alice gets memberLeave only: take exactly one.
            let aliceAgain = try await alice.client.subscribe(kinds: ["memberLeave", "quitFromGroup"], since: 0)
            #expect(try await self.take(1, from: aliceAgain).map(\.kind) == ["memberLeave"])
        }
    }

    @Test func sinceReplaysThenStreamsLiveWithNoGapOrDuplicate() async throws {
        try await TestDaemon.run { socket, _ in
            let alice = try await Member.join(socket, "alice")
            _ = try await alice.client.call(GroupMethods.Create.self, .init(name: "G", groupID: "g"))
            for index in 0..<300 {
                _ = try await alice.client.call(GroupMethods.Rename.self, .init(groupID: "g", name: "before-\(index)"))
            }
            // Writers keep going while a second connection subscribes from the beginning.
            let writer = Task {
                for index in 0..<300 {
                    _ = try await alice.client.call(GroupMethods.Rename.self, .init(groupID: "g", name: "during-\(index)"))
                }
            }
            let watcher = try await GuildClient.connect(path: socket)
            _ = try await watcher.call(SessionMethods.Authenticate.self, .init(accessToken: alice.token))
            let subscription = try await watcher.subscribe(since: 0)
            try await writer.value
            let events = try await self.take(601, from: subscription)
            #expect(events.count == 601)
            #expect(events.map(\.seq) == Array(1...601))
            #expect(events.first?.kind == "groupCreated")
            #expect(events.last?.changes?["name"] == "during-299")
        }
    }

    /// Subscribers on many connections (spread over the event loops), with commits of several events each arriving
    /// while earlier ones are still being fanned out, each get every event once and in order: the same sequence.
    @Test func subscribersOnEveryLoopGetEveryEventInOrder() async throws {
        try await TestDaemon.run { socket, _ in
            let alice = try await Member.join(socket, "alice")
            _ = try await alice.client.call(GroupMethods.Create.self, .init(name: "G", groupID: "g"))
            var subscriptions: [EventSubscription] = []
            var watchers: [GuildClient] = []
            for _ in 0..<12 {
                let watcher = try await GuildClient.connect(path: socket)
                _ = try await watcher.call(SessionMethods.Authenticate.self, .init(accessToken: alice.token))
                subscriptions.append(try await watcher.subscribe(groupIDs: ["g"]))
                watchers.append(watcher)
            }
            // Eight writers at once: the group commit puts several renames in one commit.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for writer in 0..<8 {
                    group.addTask {
                        for index in 0..<25 {
                            _ = try await alice.client.call(GroupMethods.Rename.self, .init(groupID: "g", name: "w\(writer)-\(index)"))
                        }
                    }
                }
                try await group.waitForAll()
            }
            var sequences: [[Int64]] = []
            for subscription in subscriptions {
                let events = try await self.take(200, from: subscription)
                #expect(events.count == 200)
                #expect(events.allSatisfy { $0.kind == "groupInfoChanged" })
                sequences.append(events.map(\.seq))
            }
            #expect(sequences.allSatisfy { $0 == sequences[0] })
            #expect(sequences[0] == sequences[0].sorted() && Set(sequences[0]).count == 200)
            _ = watchers
        }
    }

    @Test func filtersByGroupAndKind() async throws {
        try await TestDaemon.run { socket, _ in
            let alice = try await Member.join(socket, "alice")
            _ = try await alice.client.call(GroupMethods.Create.self, .init(name: "A", groupID: "a"))
            _ = try await alice.client.call(GroupMethods.Create.self, .init(name: "B", groupID: "b"))
            let onlyB = try await alice.client.subscribe(groupIDs: ["b"], kinds: ["groupInfoChanged"], since: 0)
            _ = try await alice.client.call(GroupMethods.Rename.self, .init(groupID: "a", name: "A2"))
            _ = try await alice.client.call(GroupMethods.Rename.self, .init(groupID: "b", name: "B2"))
            let events = try await self.take(1, from: onlyB)
            #expect(events.map(\.groupID) == ["b"])
            #expect(events.map(\.kind) == ["groupInfoChanged"])
            do {
                _ = try await alice.client.subscribe(kinds: ["noSuchKind"])
                Issue.record("an unknown kind was accepted")
            } catch let error as RPCError {
                #expect(error.code == .invalidParams)
                #expect(error.field == "kinds")
            }
        }
    }

    @Test func expiredCursorsAreRefusedWithTheOldestSequence() async throws {
        try await TestDaemon.run { socket, _, store in
            let alice = try await Member.join(socket, "alice")
            _ = try await alice.client.call(GroupMethods.Create.self, .init(name: "G", groupID: "g"))
            for index in 0..<10 { _ = try await alice.client.call(GroupMethods.Rename.self, .init(groupID: "g", name: "n\(index)")) }
            _ = try await store.pruneEvents(keepCount: 3, maxAgeMilliseconds: .max / 2, now: 0)
            do {
                _ = try await alice.client.subscribe(since: 2)
                Issue.record("an expired cursor was accepted")
            } catch let error as RPCError {
                #expect(error.code == .cursorExpired)
                #expect(error.reason == "CURSOR_EXPIRED")
                #expect(error.data?["oldestSeq"]?.intValue == 9)
            }
            let fromOldest = try await alice.client.subscribe(since: 8)
            #expect(try await self.take(3, from: fromOldest).map(\.seq) == [9, 10, 11])
        }
    }

    @Test func aSlowSubscriberLagsAloneAndResumesWithoutLoss() async throws {
        try await TestDaemon.run(configure: { $0.subscriptionQueueLimit = 64 }) { socket, _ in
            let alice = try await Member.join(socket, "alice")
            _ = try await alice.client.call(GroupMethods.Create.self, .init(name: "G", groupID: "g"))
            // A raw subscriber that does not read.
            let slow = try RawConnection(path: socket)
            await slow.send(#"{"jsonrpc":"2.0","id":1,"method":"session.authenticate","params":{"accessToken":"\#(alice.token)"}}"# + "\n")
            #expect((await slow.readJSON() as? [String: Any])?["result"] != nil)
            await slow.send(#"{"jsonrpc":"2.0","id":2,"method":"events.subscribe","params":{}}"# + "\n")
            #expect((await slow.readJSON() as? [String: Any])?["result"] != nil)
            let fast = try await alice.client.subscribe()
            let big = String(repeating: "x", count: 150)
            for index in 0..<3000 {
                _ = try await alice.client.call(GroupMethods.Rename.self, .init(groupID: "g", name: "\(big)-\(index)"))
            }
            // The fast subscriber on another connection got everything.
            #expect(try await self.take(3000, from: fast).count == 3000)
            // The slow one: its subscription ended with LAGGED and a lastSeq; its connection still answers.
            var lastSeq: Int64?
            var delivered: [Int64] = []
            while lastSeq == nil, let message = await slow.readJSON() as? [String: Any] {
                let params = message["params"] as? [String: Any]
                if message["method"] as? String == "events.ended" {
                    #expect(params?["reason"] as? String == "LAGGED")
                    lastSeq = (params?["lastSeq"] as? NSNumber)?.int64Value
                } else if message["method"] as? String == "events.event", let seq = (params?["seq"] as? NSNumber)?.int64Value {
                    delivered.append(seq)
                }
            }
            let last = try #require(lastSeq)
            #expect(last < 3001)
            #expect(delivered.last == last)
            #expect(delivered == Array(2...last))
            #expect(await slow.pings())
            // Resubscribing from lastSeq loses nothing.
            await slow.send(#"{"jsonrpc":"2.0","id":3,"method":"events.subscribe","params":{"since":\#(last)}}"# + "\n")
            var resumed: [Int64] = []
            while resumed.last != 3001, let message = await slow.readJSON() as? [String: Any] {
                if let seq = ((message["params"] as? [String: Any])?["seq"] as? NSNumber)?.int64Value { resumed.append(seq) }
            }
            #expect(resumed == Array((last + 1)...3001))
        }
    }

    @Test func adminsMayWatchEverythingAndUnsubscribe() async throws {
        try await TestDaemon.run { socket, _ in
            let alice = try await Member.join(socket, "alice")
            let admin = try await GuildClient.connect(path: socket)  // the test runs as an admin peer
            let everything = try await admin.subscribe(all: true)
            _ = try await alice.client.call(GroupMethods.Create.self, .init(name: "G", groupID: "g"))
            #expect(try await self.take(1, from: everything).map(\.groupID) == ["g"])
            try await admin.unsubscribe(everything)
            do {
                _ = try await admin.call(EventMethods.Unsubscribe.self, .init(subscription: everything.id))
                Issue.record("unsubscribing twice succeeded")
            } catch let error as RPCError {
                #expect(error.code == .subscriptionNotFound)
            }
        }
    }
}
