import GuildJSON

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

        public static let access: AccessRequirement = .principal
        public static let contract = MethodContract(
            summary:
                "Subscribes to group events. Returns the subscription id and the log's head seq; events then arrive as events.event notifications, never before this reply. With since, events after since are replayed first, then live ones follow with no gap and no duplicate. A user sees events of groups they belonged to at the time and events naming them; all: true (admins only) watches every group. A subscriber that falls more than the queue limit behind gets events.ended (LAGGED, lastSeq) and resubscribes with since: lastSeq.",
            tags: ["events"],
            params: [
                .init("groupIDs", JSONSchema.array(of: JSONSchema.string), "Only these groups (topics group:<id>)"),
                .init(
                    "topics",
                    JSONSchema.array(of: JSONSchema.string),
                    "Only these topics, as area:id (e.g. group:g1, bucket:app/people); an unknown area is INVALID_INPUT_DATA"
                ),
                .init(
                    "buckets",
                    JSONSchema.array(
                        of: JSONSchema.object(required: ["scope", "bucket"], ["scope": JSONSchema.string, "bucket": JSONSchema.string])
                    ),
                    "Only these buckets (topics bucket:<scope>/<bucket>); object events reach only subscriptions that name their bucket, and only those who may read what changed"
                ),
                .init(
                    "thingIDs",
                    JSONSchema.array(of: JSONSchema.string),
                    "Only these things (topics thing:<thingID>); without a topic filter, thing events addressed to the subscriber arrive anyway"
                ),
                .init(
                    "kinds",
                    JSONSchema.array(
                        of: JSONSchema.oneOf([
                            "groupCreated", "memberEnter", "memberLeave", "memberKicked", "memberInvited", "groupInfoChanged", "groupDismissed",
                            "quitFromGroup", "groupAttributeChanged", "memberInfoChanged", "grantAdministrator", "revokeAdministrator",
                            "receiveJoinApplication", "applicationProcessed", "allMembersMuted", "newMessage", "objectCreated",
                            "objectUpdated", "objectDeleted", "bucketDeleted", "aclChanged", "commandReceived", "commandResult",
                            "thingStateChanged", "thingConnected", "thingDisconnected", "thingOwnerAdded", "thingOwnerRemoved", "thingDeleted",
                            "thingUpdated",
                            "triggerSkipped",
                        ])
                    ),
                    "Only these kinds"
                ),
                .init("since", JSONSchema.integer, "Replay events after this seq first"),
                .init("all", JSONSchema.boolean, "Admins: every group"),
            ],
            result: "subscription",
            JSONSchema.object(required: ["subscription", "seq"], ["subscription": JSONSchema.string, "seq": JSONSchema.integer]),
            errors: [
                ErrorReason.unauthorized, ErrorReason.cursorExpired, ErrorReason.tooManySubscriptions, ErrorReason.permissionDenied,
                ErrorReason.invalidInputData,
            ],
            example: .init(params: ["since": 0], result: ["subscription": "s1", "seq": 42])
        )
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

        public static let access: AccessRequirement = .session
        public static let contract = MethodContract(
            summary: "Ends a subscription of this connection.",
            tags: ["events"],
            params: [
                .init("subscription", JSONSchema.string, required: true)
            ],
            result: "unsubscribed",
            JSONSchema.boolean,
            errors: [ErrorReason.subscriptionNotFound],
            example: .init(params: ["subscription": "s1"], result: true)
        )
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
    /// `LAGGED`: the subscriber did not keep up; `THING_DISABLED`: the subscriber is a thing, disabled since
    /// (its connection is unbound; see `thing.disable`).
    public var reason: String
    /// The last event sequence number sent on this subscription.
    public var lastSeq: Int64

    /// The reason of a subscription whose subscriber did not keep up.
    public static let lagged = "LAGGED"
    /// The reason of a thing's subscription when the thing is disabled.
    public static let thingDisabled = "THING_DISABLED"

    /// Creates the params.
    public init(subscription: String, reason: String, lastSeq: Int64) {
        self.subscription = subscription
        self.reason = reason
        self.lastSeq = lastSeq
    }
}

extension EventMethods {
    /// The events area's methods, in the published contract (`protocol/openrpc.json`). A new method of the area is added here.
    public static let all: [any RPCMethod.Type] = [
        EventMethods.Subscribe.self,
        EventMethods.Unsubscribe.self,
    ]
}
