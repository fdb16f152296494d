import GuildJSON

/// An event as subscribers receive it: a group event (`groupID`, `users`, `changes`), an object event
/// (`scope`, `bucket`, `objectID`, `object`, and for `aclChanged` the entries `granted` and `revoked`) or a
/// thing event (`thingID`, `commandID`, `actions`, `state`, `owner`, ...).
public struct GuildEvent: Codable, Hashable, Sendable {
    /// The global, gap-free sequence number.
    public var seq: Int64
    /// Tencent's group listener name: `groupCreated`, `memberEnter`, `memberLeave`, `memberKicked`,
    /// `memberInvited`, `groupInfoChanged`, `groupDismissed`, `quitFromGroup`, `groupAttributeChanged`,
    /// `memberInfoChanged`, `grantAdministrator`, `revokeAdministrator`, `receiveJoinApplication`,
    /// `applicationProcessed`, `allMembersMuted`, `newMessage`, `messageRevoked` or `unreadChanged`; for buckets
    /// `objectCreated`, `objectUpdated`, `objectDeleted`, `bucketDeleted` or `aclChanged`.
    public var kind: String
    /// The group of a group event.
    public var groupID: String?
    /// The acting user; nil when an admin without a session, or the system, acted.
    public var actor: String?
    /// Whether the actor used admin rights.
    public var byAdmin: Bool?
    /// The users the event is about.
    public var users: [String]
    /// What changed (`name`, `type`, `owner`, `previousOwner`, `reason`, `changeTypes`, `attributes`, `muteUntil`, ...).
    public var changes: [String: JSONValue]?
    /// When, ms since the Unix epoch.
    public var time: Int64
    /// An object event's topic (`bucket:<scope>/<bucket>`), scope, bucket and object.
    public var topic: String?
    public var scope: String?
    public var bucket: String?
    public var objectID: String?
    /// The object after the change (objectCreated, objectUpdated), with its reserved fields.
    public var object: [String: JSONValue]?
    /// The ACL entries an aclChanged event granted and revoked.
    public var granted: [ACLMethods.Entry]?
    public var revoked: [ACLMethods.Entry]?
    /// A thing event's thing (`thing:<thingID>` topics; absent from `commandResult`, whose topic names it).
    public var thingID: String?
    /// The command of `commandReceived` and `commandResult`.
    public var commandID: String?
    /// `commandReceived`: the actions, in order, and the issuer (`user:ID` or `group:ID`).
    public var actions: [JSONValue]?
    public var issuer: String?
    /// `commandReceived` of a command a trigger sent.
    public var firedByTriggerID: String?
    /// `thingStateChanged`: the state and its time.
    public var state: [String: JSONValue]?
    public var timestamp: Int64?
    /// `thingOwnerAdded` and `thingOwnerRemoved`: the owner (`user:ID` or `group:ID`).
    public var owner: String?
    /// `triggerSkipped`: the triggers whose firing sent nothing, the bound that stopped them (`pendingCommands`,
    /// `firingRate` or `storageQuota`) and its limit.
    public var triggerIDs: [String]?
    public var reason: String?
    public var limit: Int64?

    /// Creates an event.
    public init(
        seq: Int64,
        kind: String,
        groupID: String?,
        actor: String? = nil,
        byAdmin: Bool? = nil,
        users: [String] = [],
        changes: [String: JSONValue]? = nil,
        time: Int64
    ) {
        self.seq = seq
        self.kind = kind
        self.groupID = groupID
        self.actor = actor
        self.byAdmin = byAdmin
        self.users = users
        self.changes = changes
        self.time = time
    }
}

extension GuildEvent {
    private enum CodingKeys: String, CodingKey {
        case seq, kind, groupID, actor, byAdmin, users, changes, time, topic, scope, bucket, objectID, object, granted, revoked
        case thingID, commandID, actions, issuer, firedByTriggerID, state, timestamp, owner, triggerIDs, reason, limit
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            seq: try container.decode(Int64.self, forKey: .seq),
            kind: try container.decode(String.self, forKey: .kind),
            groupID: try container.decodeIfPresent(String.self, forKey: .groupID),
            actor: try container.decodeIfPresent(String.self, forKey: .actor),
            byAdmin: try container.decodeIfPresent(Bool.self, forKey: .byAdmin),
            users: try container.decodeIfPresent([String].self, forKey: .users) ?? [],
            changes: try container.decodeIfPresent([String: JSONValue].self, forKey: .changes),
            time: try container.decode(Int64.self, forKey: .time)
        )
        self.topic = try container.decodeIfPresent(String.self, forKey: .topic)
        self.scope = try container.decodeIfPresent(String.self, forKey: .scope)
        self.bucket = try container.decodeIfPresent(String.self, forKey: .bucket)
        self.objectID = try container.decodeIfPresent(String.self, forKey: .objectID)
        self.object = try container.decodeIfPresent([String: JSONValue].self, forKey: .object)
        self.granted = try container.decodeIfPresent([ACLMethods.Entry].self, forKey: .granted)
        self.revoked = try container.decodeIfPresent([ACLMethods.Entry].self, forKey: .revoked)
        self.thingID = try container.decodeIfPresent(String.self, forKey: .thingID)
        self.commandID = try container.decodeIfPresent(String.self, forKey: .commandID)
        self.actions = try container.decodeIfPresent([JSONValue].self, forKey: .actions)
        self.issuer = try container.decodeIfPresent(String.self, forKey: .issuer)
        self.firedByTriggerID = try container.decodeIfPresent(String.self, forKey: .firedByTriggerID)
        self.state = try container.decodeIfPresent([String: JSONValue].self, forKey: .state)
        self.timestamp = try container.decodeIfPresent(Int64.self, forKey: .timestamp)
        self.owner = try container.decodeIfPresent(String.self, forKey: .owner)
        self.triggerIDs = try container.decodeIfPresent([String].self, forKey: .triggerIDs)
        self.reason = try container.decodeIfPresent(String.self, forKey: .reason)
        self.limit = try container.decodeIfPresent(Int64.self, forKey: .limit)
    }
}
