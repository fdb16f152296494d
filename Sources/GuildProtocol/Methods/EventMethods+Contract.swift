import GuildJSON

extension EventMethods.Subscribe {
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

extension EventMethods.Unsubscribe {
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

extension EventMethods {
    /// The events area's methods, in the published contract (`protocol/openrpc.json`). A new method of the area is added here.
    public static let all: [any RPCMethod.Type] = [
        EventMethods.Subscribe.self,
        EventMethods.Unsubscribe.self,
    ]
}
