import GuildJSON

/// A thing's event, for the event log (topic `thing:<thingID>`): a command for the thing, a command's result
/// for the issuer's installations, a state upload, trigger firings that were skipped, a `NOTIFY` trigger firing,
/// the thing going online or offline, an owner added or removed, the thing updated, disabled or enabled, the thing
/// deleted. Each reaches only whom it names (``ThingAudience``), live and on replay.
public struct ThingEvent: LoggableEvent {
    /// The kinds of thing events.
    public enum Kind: String, CaseIterable, Sendable {
        case commandReceived, commandResult, thingStateChanged, thingConnected, thingDisconnected
        case thingOwnerAdded, thingOwnerRemoved, thingDeleted
        /// The thing's type, firmware, custom fields or disabled status changed (the new values of what changed).
        case thingUpdated
        /// An upload's trigger firings that sent nothing, past a bound (``TriggerSkip``).
        case triggerSkipped
        /// A trigger whose action is `NOTIFY` fired: to the thing's owners and the trigger's creator, so a
        /// subscribed program can act on it (Thing-IF's server code).
        case triggerFired
    }

    public var kind: Kind
    public var thingID: String
    public var time: Int64
    /// Who receives it.
    public var audience: ThingAudience
    /// The event's own members (`commandID`, `actions`, `state`, `owner`, ...).
    public var members: [String: JSONValue]
    /// For `thingStateChanged`: the state's row in the thing's history, which the log names instead of holding
    /// the state a second time (a 10 KB state per upload would otherwise be kept twice, up to the event
    /// retention's million events).
    public var stateID: Int64?

    /// Creates an event.
    public init(kind: Kind, thingID: String, time: Int64, audience: ThingAudience, members: [String: JSONValue] = [:]) {
        self.kind = kind
        self.thingID = thingID
        self.time = time
        self.audience = audience
        self.members = members
    }

    public var topic: EventTopic { .thing(self.thingID) }
    public var kindName: String { self.kind.rawValue }
    public var audienceTag: String { "named" }

    public var routing: EventRouting {
        var routing = EventRouting(
            addressees: self.audience.principals,
            followersOf: self.audience.groups.map(EventTopic.group)
        )
        if !self.audience.installations.isEmpty {
            routing.addressees = self.audience.installationUsers
            routing.installations = self.audience.installations
        }
        return routing
    }

    /// The principals it names (`installation:<id>` for each installation a command's result goes to), and the
    /// owner groups it names.
    public var replayAudience: ReplayAudience {
        let principals = self.audience.installations.isEmpty ? self.audience.principals : self.audience.installations.map { "installation:" + $0 }
        return ReplayAudience(readers: Array(Set(principals)), groups: Array(Set(self.audience.groups)))
    }

    public func encodeBody() throws -> [UInt8] {
        let body = self.bodyMembers
        assert(EventField.check(ThingEventAudience(), members: body.keys, kind: self.kind.rawValue))
        return JSONValue.object(body).jsonBytes
    }

    /// The members of the body, as subscribers receive it.
    private var bodyMembers: [String: JSONValue] {
        var body = self.members
        body["kind"] = .string(self.kind.rawValue)
        body["topic"] = .string(self.topic.rawValue)
        body["time"] = .int(self.time)
        if self.kind != .commandResult { body["thingID"] = .string(self.thingID) }
        return body
    }

    public func encodeStoredBody() throws -> [UInt8]? {
        guard let stateID = self.stateID, self.members["state"] != nil else { return nil }
        var body = self.bodyMembers
        body["state"] = nil
        body[Self.stateIDMember] = .int(stateID)
        return JSONValue.object(body).jsonBytes
    }

    /// The member a stored `thingStateChanged` body names its state with.
    static let stateIDMember = "stateID"

    /// A body read back from the log as subscribers receive it: a `thingStateChanged` body that names its state
    /// gets the state again from `state` (given the row id and the thing: the history row's JSON object, nil once
    /// the history dropped it, when the event carries `"state": null`); any other body is returned as it is.
    public static func expandStoredBody(
        _ body: [UInt8],
        kind: String,
        state: (_ id: Int64, _ thingID: String) throws -> [String: JSONValue]?
    ) throws -> [UInt8] {
        guard kind == Kind.thingStateChanged.rawValue,
            case .object(var members)? = try? body.withUnsafeBytes({ try JSONValue(parsing: $0) }),
            let stateID = members[Self.stateIDMember]?.intValue, let thingID = members["thingID"]?.stringValue
        else { return body }
        members[Self.stateIDMember] = nil
        members["state"] = try state(stateID, thingID).map(JSONValue.object) ?? .null
        var bytes: [UInt8] = []
        JSONValue.object(members).writeJSON(to: &bytes)
        return bytes
    }
}

/// Who receives a thing event: principals by id (users, pseudo users, the thing itself), the members of owner
/// groups as the membership stands at the event, or, for a command's result, installations (of the users in
/// ``installationUsers``).
public struct ThingAudience: Hashable, Sendable {
    public var principals: [String]
    public var groups: [String]
    /// Installation ids; when any, only connections bound to one of them receive the event.
    public var installations: [String]
    /// The users those installations belong to.
    public var installationUsers: [String]

    public init(principals: [String] = [], groups: [String] = [], installations: [String] = [], installationUsers: [String] = []) {
        self.principals = principals
        self.groups = groups
        self.installations = installations
        self.installationUsers = installationUsers
    }

    /// A thing's owners (and `extra` principals, such as the thing itself or a removed owner).
    public static func owners(_ owners: [ThingOwner], plus extra: [String] = []) -> ThingAudience {
        var principals = extra
        var groups: [String] = []
        for owner in owners {
            switch owner {
            case .user(let id): principals.append(id)
            case .group(let id): groups.append(id)
            }
        }
        return ThingAudience(principals: Array(Set(principals)).sorted(), groups: Array(Set(groups)).sorted())
    }
}

/// The things area's audience rule: an event reaches the principals, owner groups' members or installations
/// its ``ThingAudience`` names; a subscription may narrow to one thing with the topic `thing:<thingID>`.
public struct ThingEventAudience: EventAudience {
    /// `thing`.
    public static let thingArea = "thing"

    public var area: String { Self.thingArea }
    public var kinds: [String] { ThingEvent.Kind.allCases.map(\.rawValue) }

    /// The principals an event names, a command's result's installations included, and the members of its
    /// owner groups at the time. Thing events are addressed, never followed.
    public var replay: ReplayRule {
        ReplayRule(
            readers: .init(table: "thing_event_reader", column: "principal"),
            readersMatchInstallation: true,
            groups: "thing_event_group"
        )
    }

    public var fields: [EventField] {
        let received = [ThingEvent.Kind.commandReceived.rawValue]
        let commands = [ThingEvent.Kind.commandReceived, .commandResult].map(\.rawValue)
        let owners = [ThingEvent.Kind.thingOwnerAdded, .thingOwnerRemoved].map(\.rawValue)
        let skipped = [ThingEvent.Kind.triggerSkipped.rawValue]
        let state = [ThingEvent.Kind.thingStateChanged.rawValue]
        let updated = [ThingEvent.Kind.thingUpdated.rawValue]
        let fired = [ThingEvent.Kind.triggerFired.rawValue]
        return [
            EventField("topic", .string, always: true, "thing:<thingID>"),
            EventField(
                "thingID",
                .string,
                always: true,
                kinds: ThingEvent.Kind.allCases.filter { $0 != .commandResult }.map(\.rawValue),
                "The thing (a commandResult names it only in its topic)"
            ),
            EventField("commandID", .string, always: true, kinds: commands, "The command"),
            EventField("actions", .values, always: true, kinds: received, "The command's actions, in order"),
            EventField("issuer", .string, always: true, kinds: received, "Who sent the command: user:<userID> or group:<groupID>"),
            EventField("schema", .string, always: true, kinds: received, "The command's schema name"),
            EventField("schemaVersion", .integer, always: true, kinds: received, "The command's schema version"),
            EventField("firedByTriggerID", .string, kinds: received, "The trigger that sent the command"),
            EventField("title", .string, kinds: received, "The command's title"),
            EventField("description", .string, kinds: received, "The command's description"),
            EventField("metadata", .object, kinds: received, "The command's metadata"),
            EventField(
                "state",
                .object,
                always: true,
                nullable: true,
                kinds: state,
                "The state the thing reported (null once pruned from its history)"
            ),
            EventField("timestamp", .integer, always: true, kinds: state, "When the state was taken, ms since the Unix epoch"),
            EventField("owner", .string, always: true, kinds: owners, "The owner added or removed: user:<userID> or group:<groupID>"),
            EventField("thingType", .string, kinds: updated, "The thing's new type, when it changed"),
            EventField("firmwareVersion", .string, kinds: updated, "The thing's new firmware version, when it changed"),
            EventField("thingProperties", .object, kinds: updated, "The thing's custom fields after the change, when they changed"),
            EventField("disabled", .boolean, kinds: updated, "Whether the thing is now disabled, when that changed"),
            EventField("triggerIDs", .strings, always: true, kinds: skipped, "The triggers whose firing sent nothing"),
            EventField("reason", .string, always: true, kinds: skipped, "The bound that stopped them: pendingCommands, firingRate or storageQuota"),
            EventField("limit", .integer, always: true, kinds: skipped, "That bound's limit"),
            EventField("triggerID", .string, always: true, kinds: fired, "The trigger that fired"),
            EventField("eventSource", .string, always: true, kinds: fired, "What fired it: STATES, SCHEDULE or SCHEDULE_ONCE"),
            EventField("dueAt", .integer, kinds: fired, "When a schedule was due, ms since the Unix epoch"),
            EventField("parameters", .object, kinds: fired, "The parameters the trigger was given for its NOTIFY action"),
        ]
    }

    public init() {}
}

extension EventTopic {
    /// A thing's topic, `thing:<thingID>`.
    public static func thing(_ thingID: String) -> EventTopic {
        EventTopic(area: ThingEventAudience.thingArea, id: thingID)
    }
}
