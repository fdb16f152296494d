// Generated from the event areas' declarations (EventAreas.declared in Sources/GuildCore/Events/EventAreas.swift, each
// area's fields) by `scripts/gen-contract`. Do not edit: change the source, then run that script again.

import GuildJSON

/// An event as subscribers receive it: `seq`, `kind` and `time`, and the members of its area: `group`, `bucket`, `thing`.
/// A member is nil when the event's area or kind does not carry it (``kinds`` lists each area's kinds).
public struct GuildEvent: Codable, Hashable, Sendable {
    /// The global, gap-free sequence number.
    public var seq: Int64
    /// What happened: one of the area's kinds.
    public var kind: String
    /// When, ms since the Unix epoch.
    public var time: Int64
    /// The group.
    public var groupID: String?
    /// Group events: The acting user; absent when an admin without a session, or the system, acted. Bucket events: Who
    /// made the change; absent for an admin or an anonymous caller.
    public var actor: String?
    /// Whether the actor used admin rights (absent when not).
    public var byAdmin: Bool?
    /// The users the event is about.
    public var users: [String]?
    /// What changed: name, type, owner, previousOwner, reason, introduction, notification, faceURL, custom, shutUpAll,
    /// addOpt, changeTypes (Tencent's numbers), attributes and version, muteUntil, muted, applicationID, accepted,
    /// message, userDeleted; for messages messageSeq, msgID, priority, text, custom, cloudCustomData, atUserList,
    /// revoked; for unreadChanged unread, mentioned, readSeq.
    public var changes: [String: JSONValue]?
    /// Bucket events: bucket:<scope>/<bucket>, or bucket:<scope> for a scope's ACL. Thing events: thing:<thingID>.
    public var topic: String?
    /// The scope: app, user:<userID>, group:<groupID> or thing:<thingID>.
    public var scope: String?
    /// The bucket; absent for a change to a scope's ACL.
    public var bucket: String?
    /// The object. In objectCreated, objectUpdated, objectDeleted.
    public var objectID: String?
    /// The object after the change, with its reserved fields. In objectCreated, objectUpdated.
    public var object: [String: JSONValue]?
    /// The ACL entries the change granted. In aclChanged.
    public var granted: [ACLMethods.Entry]?
    /// The ACL entries the change revoked. In aclChanged.
    public var revoked: [ACLMethods.Entry]?
    /// The thing (a commandResult names it only in its topic). In commandReceived, thingStateChanged, thingConnected,
    /// thingDisconnected, thingOwnerAdded, thingOwnerRemoved, thingDeleted, thingUpdated, triggerSkipped, triggerFired.
    public var thingID: String?
    /// The command. In commandReceived, commandResult.
    public var commandID: String?
    /// The command's actions, in order. In commandReceived.
    public var actions: [JSONValue]?
    /// Who sent the command: user:<userID> or group:<groupID>. In commandReceived.
    public var issuer: String?
    /// The command's schema name. In commandReceived.
    public var schema: String?
    /// The command's schema version. In commandReceived.
    public var schemaVersion: Int64?
    /// The trigger that sent the command. In commandReceived.
    public var firedByTriggerID: String?
    /// The command's title. In commandReceived.
    public var title: String?
    /// The command's description. In commandReceived.
    public var description: String?
    /// The command's metadata. In commandReceived.
    public var metadata: [String: JSONValue]?
    /// The state the thing reported (null once pruned from its history). In thingStateChanged.
    public var state: [String: JSONValue]?
    /// When the state was taken, ms since the Unix epoch. In thingStateChanged.
    public var timestamp: Int64?
    /// The owner added or removed: user:<userID> or group:<groupID>. In thingOwnerAdded, thingOwnerRemoved.
    public var owner: String?
    /// The thing's new type, when it changed. In thingUpdated.
    public var thingType: String?
    /// The thing's new firmware version, when it changed. In thingUpdated.
    public var firmwareVersion: String?
    /// The thing's custom fields after the change, when they changed. In thingUpdated.
    public var thingProperties: [String: JSONValue]?
    /// Whether the thing is now disabled, when that changed. In thingUpdated.
    public var disabled: Bool?
    /// The triggers whose firing sent nothing. In triggerSkipped.
    public var triggerIDs: [String]?
    /// The bound that stopped them: pendingCommands, firingRate or storageQuota. In triggerSkipped.
    public var reason: String?
    /// That bound's limit. In triggerSkipped.
    public var limit: Int64?
    /// The trigger that fired. In triggerFired.
    public var triggerID: String?
    /// What fired it: STATES, SCHEDULE or SCHEDULE_ONCE. In triggerFired.
    public var eventSource: String?
    /// When a schedule was due, ms since the Unix epoch. In triggerFired.
    public var dueAt: Int64?
    /// The parameters the trigger was given for its NOTIFY action. In triggerFired.
    public var parameters: [String: JSONValue]?

    /// Creates an event.
    public init(
        seq: Int64,
        kind: String,
        time: Int64,
        groupID: String? = nil,
        actor: String? = nil,
        byAdmin: Bool? = nil,
        users: [String]? = nil,
        changes: [String: JSONValue]? = nil,
        topic: String? = nil,
        scope: String? = nil,
        bucket: String? = nil,
        objectID: String? = nil,
        object: [String: JSONValue]? = nil,
        granted: [ACLMethods.Entry]? = nil,
        revoked: [ACLMethods.Entry]? = nil,
        thingID: String? = nil,
        commandID: String? = nil,
        actions: [JSONValue]? = nil,
        issuer: String? = nil,
        schema: String? = nil,
        schemaVersion: Int64? = nil,
        firedByTriggerID: String? = nil,
        title: String? = nil,
        description: String? = nil,
        metadata: [String: JSONValue]? = nil,
        state: [String: JSONValue]? = nil,
        timestamp: Int64? = nil,
        owner: String? = nil,
        thingType: String? = nil,
        firmwareVersion: String? = nil,
        thingProperties: [String: JSONValue]? = nil,
        disabled: Bool? = nil,
        triggerIDs: [String]? = nil,
        reason: String? = nil,
        limit: Int64? = nil,
        triggerID: String? = nil,
        eventSource: String? = nil,
        dueAt: Int64? = nil,
        parameters: [String: JSONValue]? = nil
    ) {
        self.seq = seq
        self.kind = kind
        self.time = time
        self.groupID = groupID
        self.actor = actor
        self.byAdmin = byAdmin
        self.users = users
        self.changes = changes
        self.topic = topic
        self.scope = scope
        self.bucket = bucket
        self.objectID = objectID
        self.object = object
        self.granted = granted
        self.revoked = revoked
        self.thingID = thingID
        self.commandID = commandID
        self.actions = actions
        self.issuer = issuer
        self.schema = schema
        self.schemaVersion = schemaVersion
        self.firedByTriggerID = firedByTriggerID
        self.title = title
        self.description = description
        self.metadata = metadata
        self.state = state
        self.timestamp = timestamp
        self.owner = owner
        self.thingType = thingType
        self.firmwareVersion = firmwareVersion
        self.thingProperties = thingProperties
        self.disabled = disabled
        self.triggerIDs = triggerIDs
        self.reason = reason
        self.limit = limit
        self.triggerID = triggerID
        self.eventSource = eventSource
        self.dueAt = dueAt
        self.parameters = parameters
    }

    /// Every area's event kinds, by topic area.
    public static let kinds: [String: [String]] = [
        "bucket": ["objectCreated", "objectUpdated", "objectDeleted", "bucketDeleted", "aclChanged"],
        "group": [
            "groupCreated",
            "memberEnter",
            "memberLeave",
            "memberKicked",
            "memberInvited",
            "groupInfoChanged",
            "groupDismissed",
            "quitFromGroup",
            "groupAttributeChanged",
            "memberInfoChanged",
            "grantAdministrator",
            "revokeAdministrator",
            "receiveJoinApplication",
            "applicationProcessed",
            "allMembersMuted",
            "newMessage",
            "messageRevoked",
            "unreadChanged",
        ],
        "thing": [
            "commandReceived",
            "commandResult",
            "thingStateChanged",
            "thingConnected",
            "thingDisconnected",
            "thingOwnerAdded",
            "thingOwnerRemoved",
            "thingDeleted",
            "thingUpdated",
            "triggerSkipped",
            "triggerFired",
        ],
    ]
}
