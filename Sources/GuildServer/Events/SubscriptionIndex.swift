import GuildCore

/// What the index needs of a subscription (``Subscription``, or a stand-in in tests).
protocol IndexedSubscriber: AnyObject {
    /// The user whose view this is; nil for an admin.
    var userID: String? { get }
    /// The topics asked for; nil for any.
    var topicFilter: Set<EventTopic>? { get }
    /// The topics followed once started; nil while its starting point is not read yet.
    var startedFollowing: Set<EventTopic>? { get }
}

/// Which subscriptions an event concerns, found by its topic and the users it names instead of offering
/// every event to every subscription. Kept under the hub's lock, and updated in sequence order as events
/// change who follows a topic (their area's ``EventRouting``), exactly as each subscription updates its own
/// view, so the two agree.
///
/// - A subscription whose starting point is not read yet is offered everything (it sorts its events out when
///   it starts); it is filed at the next publish after it started, from the topics it follows then.
/// - An admin watching everything is offered everything; an admin asking for topics is filed under them.
/// - A user's subscription is filed under its user, for events naming them, and under the topics it follows
///   (only those it asked for, when it asked for some).
struct SubscriptionIndex<Subscriber: IndexedSubscriber> {
    private typealias Key = ObjectIdentifier

    private var unsorted: [Key: Subscriber] = [:]
    private var everything: [Key: Subscriber] = [:]
    private var byTopic: [EventTopic: [Key: Subscriber]] = [:]
    private var byUser: [String: [Key: Subscriber]] = [:]
    /// The topics each filed subscription is filed under, to unfile it.
    private var filed: [Key: Set<EventTopic>] = [:]

    /// Adds a subscription that has not started: offered every event until it has.
    mutating func add(_ subscriber: Subscriber) {
        self.unsorted[Key(subscriber)] = subscriber
    }

    /// Removes a subscription.
    mutating func remove(_ subscriber: Subscriber) {
        let key = Key(subscriber)
        self.unsorted[key] = nil
        self.everything[key] = nil
        for topic in self.filed.removeValue(forKey: key) ?? [] { self.unfile(key, from: topic) }
        if let userID = subscriber.userID {
            self.byUser[userID]?[key] = nil
            if self.byUser[userID]?.isEmpty == true { self.byUser[userID] = nil }
        }
    }

    /// For each subscription concerned, the events it is offered, in sequence order.
    mutating func route<Envelope: AnyObject>(
        _ envelopes: [Envelope],
        event: (Envelope) -> CommittedEvent
    ) -> [(Subscriber, [Envelope])] {
        self.fileStarted()
        var deliveries: [(Subscriber, [Envelope])] = []
        var slots: [Key: Int] = [:]
        func deliver(_ subscriber: Subscriber, _ envelope: Envelope) {
            let key = Key(subscriber)
            if let slot = slots[key] {
                if deliveries[slot].1.last !== envelope { deliveries[slot].1.append(envelope) }
            } else {
                slots[key] = deliveries.count
                deliveries.append((subscriber, [envelope]))
            }
        }
        for envelope in envelopes {
            let committed = event(envelope)
            let routing = committed.audience.routing(of: committed)
            for user in routing.joining {
                guard let subscribers = self.byUser[user] else { continue }
                for (key, subscriber) in subscribers { self.follow(subscriber, key, committed.topic) }
            }
            for subscriber in self.unsorted.values { deliver(subscriber, envelope) }
            for subscriber in self.everything.values { deliver(subscriber, envelope) }
            if let subscribers = self.byTopic[committed.topic] {
                for subscriber in subscribers.values { deliver(subscriber, envelope) }
            }
            for user in routing.addressees {
                guard let subscribers = self.byUser[user] else { continue }
                for subscriber in subscribers.values { deliver(subscriber, envelope) }
            }
            for user in routing.leaving {
                guard let subscribers = self.byUser[user] else { continue }
                for key in subscribers.keys where self.filed[key]?.remove(committed.topic) != nil {
                    self.unfile(key, from: committed.topic)
                }
            }
        }
        return deliveries
    }

    /// Files the subscriptions that have started since the last publish.
    private mutating func fileStarted() {
        guard !self.unsorted.isEmpty else { return }
        for (key, subscriber) in self.unsorted {
            guard let following = subscriber.startedFollowing else { continue }
            self.unsorted[key] = nil
            if let userID = subscriber.userID {
                self.byUser[userID, default: [:]][key] = subscriber
                self.filed[key] = []
                for topic in following { self.follow(subscriber, key, topic) }
            } else if let topics = subscriber.topicFilter {
                self.filed[key] = topics
                for topic in topics { self.byTopic[topic, default: [:]][key] = subscriber }
            } else {
                self.everything[key] = subscriber
            }
        }
    }

    private mutating func follow(_ subscriber: Subscriber, _ key: Key, _ topic: EventTopic) {
        if let wanted = subscriber.topicFilter, !wanted.contains(topic) { return }
        guard self.filed[key]?.insert(topic).inserted == true else { return }
        self.byTopic[topic, default: [:]][key] = subscriber
    }

    private mutating func unfile(_ key: Key, from topic: EventTopic) {
        self.byTopic[topic]?[key] = nil
        if self.byTopic[topic]?.isEmpty == true { self.byTopic[topic] = nil }
    }

    /// Subscriptions filed under `topic` (for tests).
    func filedCount(under topic: EventTopic) -> Int { self.byTopic[topic]?.count ?? 0 }
}
