import GuildCore
import Testing

@testable import GuildServer

/// The fan-out index: an event is offered only to the subscriptions its topic and routing concern.
struct SubscriptionIndexTests {
    final class Subscriber: IndexedSubscriber {
        let userID: String?
        let topicFilter: Set<EventTopic>?
        var startedFollowing: Set<EventTopic>?

        init(userID: String?, topics: Set<EventTopic>? = nil, following: Set<EventTopic>? = []) {
            self.userID = userID
            self.topicFilter = topics
            self.startedFollowing = following
        }
    }

    var seq: Int64 = 0

    mutating func event(_ kind: GroupEvent.Kind, _ groupID: String, _ build: (inout GroupEvent) -> Void = { _ in }) -> CommittedEvent {
        self.seq += 1
        var event = GroupEvent(kind: kind, groupID: groupID, actor: nil, time: 1)
        build(&event)
        return CommittedEvent(seq: self.seq, event: event, json: [])
    }

    /// Who each event is offered to, by subscriber name.
    func offered(
        _ index: inout SubscriptionIndex<Subscriber>,
        _ events: [CommittedEvent],
        names: [ObjectIdentifier: String]
    ) -> [String: [Int64]] {
        var offered: [String: [Int64]] = [:]
        for (subscriber, batch) in index.route(events, event: { $0 }) {
            offered[names[ObjectIdentifier(subscriber)]!] = batch.map(\.seq)
        }
        return offered
    }

    @Test mutating func offersAnEventOnlyToTheSubscriptionsItConcerns() {
        let alice = Subscriber(userID: "alice", following: [.group("a")])
        let bob = Subscriber(userID: "bob", following: [.group("b")])
        let carol = Subscriber(userID: "carol")
        let watcher = Subscriber(userID: nil, topics: nil)
        let watcherOfB = Subscriber(userID: nil, topics: [.group("b")])
        let starting = Subscriber(userID: "dave", following: nil)
        let names = [
            ObjectIdentifier(alice): "alice", ObjectIdentifier(bob): "bob", ObjectIdentifier(carol): "carol",
            ObjectIdentifier(watcher): "watcher", ObjectIdentifier(watcherOfB): "watcherOfB", ObjectIdentifier(starting): "starting",
        ]
        var index = SubscriptionIndex<Subscriber>()
        for subscriber in [alice, bob, carol, watcher, watcherOfB, starting] { index.add(subscriber) }

        // A message of group a: not offered to bob (group b only), nor to the admin watching b.
        let inA = self.event(.newMessage, "a")
        #expect(self.offered(&index, [inA], names: names) == ["alice": [1], "watcher": [1], "starting": [1]])
        #expect(index.filedCount(under: .group("a")) == 1)

        // Alice joins b; in the same batch, a message of b reaches her; then she leaves and sees her leave only.
        let join = self.event(.memberEnter, "b") {
            $0.users = ["alice"]
            $0.joined = ["alice"]
        }
        let inB = self.event(.newMessage, "b")
        let leave = self.event(.memberLeave, "b") {
            $0.users = ["alice"]
            $0.left = ["alice"]
        }
        let afterLeave = self.event(.newMessage, "b")
        let offered = self.offered(&index, [join, inB, leave, afterLeave], names: names)
        #expect(offered["alice"] == [2, 3, 4])
        #expect(offered["bob"] == [2, 3, 4, 5])
        #expect(offered["watcherOfB"] == [2, 3, 4, 5])
        #expect(offered["carol"] == nil)
        #expect(index.filedCount(under: .group("b")) == 2)  // bob and the admin watching b

        // An event naming carol reaches her although she follows nothing; the started subscription is filed.
        starting.startedFollowing = [.group("d")]
        let quit = self.event(.quitFromGroup, "c") {
            $0.users = ["carol"]
            $0.audience = .named
        }
        #expect(self.offered(&index, [quit], names: names) == ["carol": [6], "watcher": [6]])

        index.remove(bob)
        index.remove(watcherOfB)
        #expect(index.filedCount(under: .group("b")) == 0)
        let lastInB = self.event(.newMessage, "b")
        #expect(self.offered(&index, [lastInB], names: names) == ["watcher": [7]])
    }
}
