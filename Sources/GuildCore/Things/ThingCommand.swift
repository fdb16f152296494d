import GuildJSON

/// A command's state, as Thing-IF's v0 SDKs name it: SENDING when sent, DELIVERED once the notification was
/// written to a connection of the thing, then DONE (every action succeeded) or INCOMPLETE (one failed).
public enum CommandState: String, Sendable, CaseIterable {
    case sending = "SENDING"
    case delivered = "DELIVERED"
    case done = "DONE"
    case incomplete = "INCOMPLETE"

    /// Whether the thing has posted its results.
    public var isFinished: Bool { self == .done || self == .incomplete }
}

/// What a command asks of a thing, checked: its actions in order, its issuer, schema and texts.
public struct CommandRequest: Sendable, Hashable {
    /// `[{name: params}]`: each a single-key object.
    public var actions: [JSONValue]
    public var issuer: ThingOwner
    public var schema: String
    public var schemaVersion: Int
    public var title: String?
    public var description: String?
    public var metadata: [String: JSONValue]?

    /// Creates a request.
    public init(
        actions: [JSONValue],
        issuer: ThingOwner,
        schema: String,
        schemaVersion: Int,
        title: String? = nil,
        description: String? = nil,
        metadata: [String: JSONValue]? = nil
    ) {
        self.actions = actions
        self.issuer = issuer
        self.schema = schema
        self.schemaVersion = schemaVersion
        self.title = title
        self.description = description
        self.metadata = metadata
    }

    /// The actions' names, in order.
    public var actionNames: [String] { self.actions.compactMap { $0.objectValue?.keys.first } }
}

/// A command sent to a thing, with its results once posted.
public struct ThingCommand: Sendable, Hashable {
    public var commandID: String
    public var thingID: String
    public var request: CommandRequest
    /// The user who sent it (nil: an admin, or a trigger).
    public var senderUserID: String?
    /// The installation the sender's connection was bound to, when the sender is a pseudo user.
    public var senderInstallationID: String?
    /// Whether the sender was a pseudo user when sending (the result goes to the sending installation only).
    public var senderIsPseudo: Bool
    /// `[{name: {succeeded, errorMessage?, data?}}]`, in the actions' order; nil until posted.
    public var actionResults: [JSONValue]?
    public var state: CommandState
    public var firedByTriggerID: String?
    public var created: Int64
    public var modified: Int64

    /// Creates a command.
    public init(
        commandID: String,
        thingID: String,
        request: CommandRequest,
        senderUserID: String?,
        senderInstallationID: String?,
        senderIsPseudo: Bool,
        actionResults: [JSONValue]? = nil,
        state: CommandState = .sending,
        firedByTriggerID: String? = nil,
        created: Int64,
        modified: Int64
    ) {
        self.commandID = commandID
        self.thingID = thingID
        self.request = request
        self.senderUserID = senderUserID
        self.senderInstallationID = senderInstallationID
        self.senderIsPseudo = senderIsPseudo
        self.actionResults = actionResults
        self.state = state
        self.firedByTriggerID = firedByTriggerID
        self.created = created
        self.modified = modified
    }
}

/// A state a thing uploaded.
public struct ThingState: Sendable, Hashable {
    public var state: [String: JSONValue]
    /// The thing's time for it, or the daemon's when it gave none (ms).
    public var timestamp: Int64

    public init(state: [String: JSONValue], timestamp: Int64) {
        self.state = state
        self.timestamp = timestamp
    }
}

/// A device of a user to which command results are pushed (Kii's installations).
public struct Installation: Sendable, Hashable {
    public var installationID: String
    public var userID: String
    /// ANDROID, IOS, JPUSH or MQTT.
    public var deviceType: String
    public var registrationID: String?
    public var development: Bool
    public var created: Int64

    public init(installationID: String, userID: String, deviceType: String, registrationID: String?, development: Bool, created: Int64) {
        self.installationID = installationID
        self.userID = userID
        self.deviceType = deviceType
        self.registrationID = registrationID
        self.development = development
        self.created = created
    }
}

/// A trigger (Thing-IF's): when its predicate fires (a condition on the thing's uploaded states, a schedule or a
/// single time), its action runs: a command sent to the thing with `firedByTriggerID`, or a `triggerFired` event.
public struct ThingTrigger: Sendable, Hashable {
    public var triggerID: String
    public var thingID: String
    public var predicate: TriggerPredicate
    public var action: TriggerAction
    /// Thing-IF's title (at most 50 characters) and description (at most 200).
    public var title: String?
    public var description: String?
    public var enabled: Bool
    /// A schedule's next due time (ms since the Unix epoch); nil for a state predicate, and once a single time
    /// has fired.
    public var nextFire: Int64?
    /// The user who created it.
    public var creator: String?
    public var created: Int64
    public var modified: Int64

    public init(
        triggerID: String,
        thingID: String,
        predicate: TriggerPredicate,
        action: TriggerAction,
        title: String? = nil,
        description: String? = nil,
        enabled: Bool,
        nextFire: Int64? = nil,
        creator: String?,
        created: Int64,
        modified: Int64? = nil
    ) {
        self.triggerID = triggerID
        self.thingID = thingID
        self.predicate = predicate
        self.action = action
        self.title = title
        self.description = description
        self.enabled = enabled
        self.nextFire = nextFire
        self.creator = creator
        self.created = created
        self.modified = modified ?? created
    }
}
