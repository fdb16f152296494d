import GuildCore
import NIOCore
import NIOEmbedded
import Testing

@testable import GuildServer

/// What one live subscription writes for a batch of events offered at once, as the fan-out hands over the commits
/// that piled up while it was busy: joins, leaves and events of one group in a single batch.
struct SubscriptionOfferTests {
    /// Never asked: the subscriptions here start at the head, with nothing to replay.
    struct NoEvents: EventRepository {
        func eventSnapshot(userID: String?) async throws -> EventSnapshot { EventSnapshot(head: 0, oldest: 1, following: []) }
        func replay(userID: String?, installationID: String?, after: Int64, through: Int64, limit: Int) async throws -> [StoredEvent] {
            []
        }
        func pruneEvents(keepCount: Int64, maxAgeMilliseconds: Int64, now: Int64, limit: Int) async throws -> Int { 0 }
        func onCommittedEvents(_ sink: @escaping @Sendable ([CommittedEvent]) -> Void) {}
    }

    /// A live subscription of `userID` (following `following`) on an embedded channel.
    func liveSubscription(
        userID: String,
        following: Set<EventTopic>,
        kinds: Set<String>? = nil
    ) async throws -> (Subscription, EmbeddedChannel) {
        let channel = EmbeddedChannel()
        let connection = ConnectionState(
            id: 1,
            peer: PeerCredentials(uid: 1000, gid: 1000, pid: 1),
            isAdmin: false,
            channel: channel,
            outputLimit: 1 << 20
        )
        let subscription = Subscription(
            id: "s1",
            connection: connection,
            userID: userID,
            filter: .init(topics: nil, kinds: kinds),
            since: nil,
            queueLimit: 100
        )
        subscription.start(EventSnapshot(head: 0, oldest: 1, following: following))
        await subscription.activate(events: NoEvents(), gate: ReplayGate(permits: 1))
        return (subscription, channel)
    }

    /// The sequence numbers of the notifications written so far.
    func written(_ channel: EmbeddedChannel) throws -> [Int64] {
        channel.embeddedEventLoop.run()
        var text = ""
        while let buffer = try channel.readOutbound(as: ByteBuffer.self) { text += String(buffer: buffer) }
        return text.split(separator: "\n").map { line in
            let seq = line.split(separator: #""seq":"#)[1].prefix { $0.isNumber }
            return Int64(seq)!
        }
    }

    func event(_ seq: Int64, _ kind: GroupEvent.Kind, _ groupID: String, _ build: (inout GroupEvent) -> Void = { _ in }) -> EventEnvelope {
        var event = GroupEvent(kind: kind, groupID: groupID, actor: nil, time: 1)
        build(&event)
        return EventEnvelope(CommittedEvent(seq: seq, event: event, json: Array("{\"seq\":\(seq)}".utf8)))
    }

    @Test func aBatchSeesAJoinerInAndALeaverOutInOrder() async throws {
        let (subscription, channel) = try await self.liveSubscription(userID: "alice", following: [])
        let batch = [
            self.event(1, .newMessage, "g"),  // before alice joins: not hers
            self.event(2, .memberEnter, "g") {
                $0.users = ["alice"]
                $0.joined = ["alice"]
            },
            self.event(3, .newMessage, "g"),
            self.event(4, .groupInfoChanged, "h"),  // another group: not hers
            self.event(5, .newMessage, "g"),
            self.event(6, .memberKicked, "g") {
                $0.users = ["alice"]
                $0.left = ["alice"]
            },
            // After she left: not hers, including the next event of the same kind.
            self.event(7, .memberKicked, "g") {
                $0.users = ["carol"]
                $0.left = ["carol"]
            },
            self.event(8, .newMessage, "g"),
        ]
        #expect(subscription.offer(batch) == false)
        #expect(try self.written(channel) == [2, 3, 5, 6])
        // The next batch goes by what the last one left: she follows no group now.
        #expect(subscription.offer([self.event(9, .newMessage, "g")]) == false)
        #expect(try self.written(channel) == [])
        _ = try channel.finish()
    }

    @Test func aBatchAllVisibleIsWrittenWholeAndAKindFilterAppliesPerEvent() async throws {
        let (member, memberChannel) = try await self.liveSubscription(userID: "bob", following: [.group("g")])
        let batch = (1...5).map { self.event($0, .newMessage, "g") }
        #expect(member.offer(batch) == false)
        #expect(try self.written(memberChannel) == [1, 2, 3, 4, 5])
        _ = try memberChannel.finish()

        let (filtered, filteredChannel) = try await self.liveSubscription(
            userID: "bob",
            following: [.group("g")],
            kinds: ["groupInfoChanged"]
        )
        let mixed = [
            self.event(6, .newMessage, "g"), self.event(7, .groupInfoChanged, "g"), self.event(8, .newMessage, "g"),
            self.event(9, .groupInfoChanged, "g"),
        ]
        #expect(filtered.offer(mixed) == false)
        #expect(try self.written(filteredChannel) == [7, 9])
        _ = try filteredChannel.finish()
    }
}
