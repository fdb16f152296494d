/// `events.*`: durable, resumable subscriptions to group events.
public enum EventMethods: Sendable {
    /// `events.subscribe`: returns the subscription id and the log's head `seq`; events after it then arrive
    /// as `events.event` notifications (never before this reply). With `since`, events after `since` are
    /// replayed first, then live ones follow with no gap and no duplicate. `all` (admins only) watches
    /// every group; otherwise the caller sees events of groups they belonged to at the time, and events
    /// that name them.
    public enum Subscribe: RPCMethod {
        public struct Params: Codable, Hashable, Sendable {
            /// Groups to watch: the same as topics `group:<id>`.
            public var groupIDs: [String]?
            /// Topics to watch, as `area:id` (e.g. `group:g1`); with `groupIDs`, either matches.
            public var topics: [String]?
            /// Buckets to watch: the same as topics `bucket:<scope>/<bucket>`. Object events reach only
            /// subscriptions that name their bucket.
            public var buckets: [BucketRef]?
            /// Things to watch: the same as topics `thing:<thingID>`.
            public var thingIDs: [String]?
            public var kinds: [String]?
            public var since: Int64?
            public var all: Bool?
            public init(
                groupIDs: [String]? = nil,
                topics: [String]? = nil,
                buckets: [BucketRef]? = nil,
                thingIDs: [String]? = nil,
                kinds: [String]? = nil,
                since: Int64? = nil,
                all: Bool? = nil
            ) {
                self.groupIDs = groupIDs
                self.topics = topics
                self.buckets = buckets
                self.thingIDs = thingIDs
                self.kinds = kinds
                self.since = since
                self.all = all
            }
        }
        public struct Result: Codable, Hashable, Sendable {
            public var subscription: String
            /// The sequence number of the last event committed when the subscription started.
            public var seq: Int64
            public init(subscription: String, seq: Int64) {
                self.subscription = subscription
                self.seq = seq
            }
        }
        public static let name = "events.subscribe"
    }

    /// A bucket to watch.
    public struct BucketRef: Codable, Hashable, Sendable {
        public var scope: String
        public var bucket: String
        public init(scope: String, bucket: String) {
            self.scope = scope
            self.bucket = bucket
        }
    }

    /// `events.unsubscribe`: ends a subscription of this connection.
    public enum Unsubscribe: RPCMethod {
        public struct Params: Codable, Hashable, Sendable {
            public var subscription: String
            public init(subscription: String) { self.subscription = subscription }
        }
        public typealias Result = Bool
        public static let name = "events.unsubscribe"
    }
}

/// The params of an `events.event` notification.
public struct EventNotification: Codable, Hashable, Sendable {
    /// The notification method.
    public static let method = "events.event"
    public var subscription: String
    public var seq: Int64
    /// The event.
    public var event: GuildEvent
}

/// The params of an `events.ended` notification: the subscription is over (e.g. its queue overflowed).
/// Resubscribe with `since: lastSeq` to lose nothing.
public struct SubscriptionEnded: Codable, Hashable, Sendable {
    /// The notification method.
    public static let method = "events.ended"
    public var subscription: String
    /// `LAGGED`: the subscriber did not keep up.
    public var reason: String
    /// The last event sequence number sent on this subscription.
    public var lastSeq: Int64

    /// Creates the params.
    public init(subscription: String, reason: String, lastSeq: Int64) {
        self.subscription = subscription
        self.reason = reason
        self.lastSeq = lastSeq
    }
}
