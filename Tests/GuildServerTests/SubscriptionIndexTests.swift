import GuildCore
import Testing

@testable import GuildServer

/// The fan-out index: an event is offered only to the subscriptions its topic and routing concern.
struct SubscriptionIndexTests {
    final class Subscriber: IndexedSubscriber {
        let userID: String?
        let topicFilter: Set<EventTopic>?
        var startedFollowing: Set<EventTopic>?
        var routeMark: UInt64 = 0
        var routeSlot: Int = 0

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

    /// The subscriptions a batch is offered to, by name.
    func offered(_ index: inout SubscriptionIndex<Subscriber>, _ events: [CommittedEvent], names: [ObjectIdentifier: String]) -> Set<String> {
        let concerned = index.route(events).map { names[ObjectIdentifier($0.subscriber)]! }
        #expect(concerned.count == Set(concerned).count, "offered twice")
        return Set(concerned)
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
        #expect(self.offered(&index, [inA], names: names) == ["alice", "watcher", "starting"])
        #expect(index.filedCount(under: .group("a")) == 1)

        // Alice joins b and leaves it in one batch: it concerns her (she sorts out what she sees), not carol.
        // The subscription still reading its starting point is offered everything.
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
        #expect(self.offered(&index, [join, inB, leave, afterLeave], names: names) == ["alice", "bob", "watcher", "watcherOfB", "starting"])
        #expect(index.filedCount(under: .group("b")) == 2)  // bob and the admin watching b: alice left
        // Alone, a message of b does not concern alice any more; a join does, as it names her.
        #expect(self.offered(&index, [self.event(.newMessage, "b")], names: names) == ["bob", "watcher", "watcherOfB", "starting"])
        let rejoin = self.event(.memberEnter, "b") {
            $0.users = ["alice"]
            $0.joined = ["alice"]
        }
        #expect(self.offered(&index, [rejoin], names: names) == ["alice", "bob", "watcher", "watcherOfB", "starting"])
        #expect(index.filedCount(under: .group("b")) == 3)

        // An event naming carol reaches her although she follows nothing; the started subscription is filed.
        starting.startedFollowing = [.group("d")]
        let quit = self.event(.quitFromGroup, "c") {
            $0.users = ["carol"]
            $0.audience = .named
        }
        #expect(self.offered(&index, [quit], names: names) == ["carol", "watcher"])

        #expect(index.filedCount(under: .group("d")) == 1)
        index.remove(alice)
        index.remove(bob)
        index.remove(watcherOfB)
        #expect(index.filedCount(under: .group("b")) == 0)
        #expect(self.offered(&index, [self.event(.newMessage, "b")], names: names) == ["watcher"])
    }

    /// A batch (one group commit) of events each addressed to another principal: every subscription is
    /// offered its own events only, in order, not the whole batch.
    @Test mutating func aBatchOffersEachSubscriptionOnlyItsOwnEvents() {
        let things = (0..<3).map { Subscriber(userID: "th.\($0)") }
        let watcher = Subscriber(userID: nil, topics: nil)
        var index = SubscriptionIndex<Subscriber>()
        for subscriber in things + [watcher] { index.add(subscriber) }
        _ = index.route([self.event(.newMessage, "warm-up")])
        var events: [CommittedEvent] = []
        for round in 0..<2 {
            for (number, _) in things.enumerated() {
                self.seq += 1
                let command = ThingEvent(
                    kind: .commandReceived,
                    thingID: "th.\(number)",
                    time: Int64(round),
                    audience: ThingAudience(principals: ["th.\(number)"])
                )
                events.append(CommittedEvent(seq: self.seq, event: command, json: []))
            }
        }
        let routed = index.route(events)
        #expect(routed.count == 4)
        for (subscriber, positions) in routed {
            if subscriber === watcher {
                #expect(positions == nil, "an admin watching everything gets the whole batch, shared")
            } else {
                let number = things.firstIndex { $0 === subscriber }!
                #expect(positions == [number, number + 3], "a thing gets its own two commands, in order")
            }
        }
    }
}
