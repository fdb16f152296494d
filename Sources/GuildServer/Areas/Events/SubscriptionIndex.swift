import GuildCore

/// What the index needs of a subscription (``Subscription``, or a stand-in in tests).
protocol IndexedSubscriber: AnyObject {
    /// The user whose view this is; nil for an admin.
    var userID: String? { get }
    /// The topics asked for; nil for any.
    var topicFilter: Set<EventTopic>? { get }
    /// The topics followed once started; nil while its starting point is not read yet.
    var startedFollowing: Set<EventTopic>? { get }
    /// The index's mark of the last batch routed to it (it reaches each subscription once per batch without a
    /// set). Read and written only by the index, under its owner's lock.
    var routeMark: UInt64 { get set }
    /// Where the subscription is in the list of the batch being routed (valid while ``routeMark`` is the
    /// batch's). Read and written only by the index, under its owner's lock.
    var routeSlot: Int { get set }
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
    /// The mark of the batch being routed (see ``IndexedSubscriber/routeMark``).
    private var mark: UInt64 = 0

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

    /// The subscriptions the events concern, each once, with the positions in `events` of those that concern
    /// it (nil: all of them), in sequence order; each sorts out what it may see (as it would any event). Follow
    /// changes are applied in order, so an event is routed by who follows its topic just before it.
    ///
    /// A batch (one group commit) of events addressed to many different principals (commands to things, say)
    /// offers each subscription its own events only, not the whole batch.
    mutating func route(_ events: [CommittedEvent]) -> [(subscriber: Subscriber, events: [Int]?)] {
        self.fileStarted()
        var concerned: [(subscriber: Subscriber, events: [Int]?)] = []
        if events.count == 1, let only = events.first {
            // One event (the usual commit): each subscription is reached once.
            self.forEachConcerned(by: only) { concerned.append(($0, nil)) }
            return concerned
        }
        if let first = events.first,
            events.allSatisfy({
                $0.topic == first.topic && $0.routing.joining.isEmpty && $0.routing.leaving.isEmpty && $0.routing.addressees.isEmpty
                    && ($0.routing.followersOf.isEmpty || Self.isNamedOnly($0.topic))
            })
        {
            // Events of one topic that name nobody and change no one's following (a burst of changes to one
            // group): they concern the same subscriptions, each reached once.
            self.forEachConcerned(by: first) { concerned.append(($0, nil)) }
            return concerned
        }
        self.mark &+= 1
        let mark = self.mark
        // Each subscription's events as a run (first, count) while they follow one another, which is the usual
        // case (a burst of one group's changes concerns its members throughout): no list is made for those.
        // Only a subscription that misses an event after its first gets its positions listed.
        var runs: [(first: Int, count: Int, listed: [Int]?)] = []
        for (position, committed) in events.enumerated() {
            self.forEachConcerned(by: committed) { subscriber in
                if subscriber.routeMark == mark {
                    let slot = subscriber.routeSlot
                    if var listed = runs[slot].listed {
                        guard listed.last != position else { return }
                        runs[slot].listed = nil
                        listed.append(position)
                        runs[slot].listed = listed
                    } else if runs[slot].first + runs[slot].count == position {
                        runs[slot].count += 1
                    } else if runs[slot].first + runs[slot].count < position {
                        runs[slot].listed = Array(runs[slot].first..<(runs[slot].first + runs[slot].count)) + [position]
                    }
                    return
                }
                subscriber.routeMark = mark
                subscriber.routeSlot = runs.count
                runs.append((position, 1, nil))
                concerned.append((subscriber, nil))
            }
        }
        for (slot, run) in runs.enumerated() {
            if let listed = run.listed {
                concerned[slot].events = listed
            } else if run.count < events.count {
                concerned[slot].events = Array(run.first..<(run.first + run.count))
            }
        }
        return concerned
    }

    /// Calls `body` once for each subscription `committed` concerns, applying the follow changes it makes
    /// (joins before, leaves after).
    private mutating func forEachConcerned(by committed: CommittedEvent, _ body: (Subscriber) -> Void) {
        let routing = committed.routing
        for user in routing.joining {
            guard let subscribers = self.byUser[user] else { continue }
            for (key, subscriber) in subscribers { self.follow(subscriber, key, committed.topic) }
        }
        for subscriber in self.unsorted.values { body(subscriber) }
        for subscriber in self.everything.values { body(subscriber) }
        let filed = self.byTopic[committed.topic]
        if let filed {
            for subscriber in filed.values { body(subscriber) }
        }
        // Areas whose events name followers of other topics (a thing's owner groups) reach them there; those
        // whose subscribers name the topic (buckets) reach them by it.
        let reachesFollowers = !routing.followersOf.isEmpty && !Self.isNamedOnly(committed.topic)
        if !routing.addressees.isEmpty || reachesFollowers {
            // Users' subscriptions are filed by user; those filed under the topic were reached above.
            var reached: Set<Key> = []
            for user in routing.addressees {
                guard let subscribers = self.byUser[user] else { continue }
                for (key, subscriber) in subscribers where filed?[key] == nil && reached.insert(key).inserted {
                    body(subscriber)
                }
            }
            if reachesFollowers {
                for topic in routing.followersOf {
                    guard let followers = self.byTopic[topic] else { continue }
                    for (key, subscriber) in followers where filed?[key] == nil && reached.insert(key).inserted {
                        body(subscriber)
                    }
                }
            }
        }
        for user in routing.leaving {
            guard let subscribers = self.byUser[user] else { continue }
            for key in subscribers.keys where self.filed[key]?.remove(committed.topic) != nil {
                self.unfile(key, from: committed.topic)
            }
        }
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
                // Topics it names that it does not follow (buckets, things): their events reach it by topic, and
                // it sorts out what it may see.
                for topic in subscriber.topicFilter ?? [] where !Self.isFollowed(topic) {
                    self.follow(subscriber, key, topic)
                }
            } else if let topics = subscriber.topicFilter {
                self.filed[key] = topics
                for topic in topics { self.byTopic[topic, default: [:]][key] = subscriber }
            } else {
                self.everything[key] = subscriber
            }
        }
    }

    /// Whether `topic`'s area sends its events only to subscriptions that name it (see
    /// ``EventAudience/namedTopicsOnly``).
    private static func isNamedOnly(_ topic: EventTopic) -> Bool {
        EventAreas.audience(for: topic.area)?.namedTopicsOnly == true
    }

    /// Whether `topic`'s area files subscriptions by the topics they follow (groups, by membership), so a
    /// named topic is filed only once followed.
    private static func isFollowed(_ topic: EventTopic) -> Bool {
        EventAreas.audience(for: topic.area)?.followsTopics == true
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
