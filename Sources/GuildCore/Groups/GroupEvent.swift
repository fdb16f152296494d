import GuildJSON

/// Something that happened to a group, named after Tencent IM's group listener callbacks. Appended to the
/// event log in the same transaction as the change it describes.
public struct GroupEvent: Sendable, Hashable {
    /// The kind of event.
    public enum Kind: String, Sendable, Hashable, CaseIterable, Codable {
        case groupCreated
        case memberEnter
        case memberLeave
        case memberKicked
        case memberInvited
        case groupInfoChanged
        case groupDismissed
        case quitFromGroup
        case groupAttributeChanged
        case memberInfoChanged
        case grantAdministrator
        case revokeAdministrator
        case receiveJoinApplication
        case applicationProcessed
        case allMembersMuted
        case newMessage
        /// A message was recalled (its body is gone).
        case messageRevoked
        /// The member's own read mark moved (`group.markRead`); only to that member.
        case unreadChanged
    }

    /// Who receives the event besides an admin watching everything.
    public enum Audience: String, Sendable, Hashable, Codable {
        /// Members of the group when it happened, and the users it names.
        case members
        /// Only the users it names (e.g. `quitFromGroup` goes to the quitter alone), or its ``GroupEvent/recipients``.
        case named
        /// Only subscribers watching every group (app admins: Tencent's server callbacks), e.g. member changes
        /// of a Meeting group, whose members get no member-change notifications.
        case admins
    }

    public var kind: Kind
    public var groupID: String
    /// The acting user, nil when an admin without a session acted.
    public var actor: String?
    /// Whether the actor had admin rights and used them.
    public var byAdmin: Bool
    /// The users the event is about (added, removed, the new owner, ...).
    public var users: [String]
    /// What changed, for `groupInfoChanged` (e.g. `{"name": "New"}`, `{"owner": "u2"}`) and others.
    public var changes: [String: JSONValue]?
    public var audience: Audience
    /// Who receives a `.named` event when they are not the users it names (e.g. the owner and admins for
    /// `receiveJoinApplication`); nil for the users it names.
    public var recipients: [String]?
    /// When, ms since the Unix epoch.
    public var time: Int64
    /// Users who became members with this event (the delivery index applies this before delivering).
    public var joined: [String]
    /// Users who stopped being members with this event (applied after delivering, so they see it).
    public var left: [String]
    /// Members who get no copy although the audience includes them: a `newMessage` skips members whose
    /// receive option is `NOT_RECEIVE`. Never on the wire (it would tell others about those members).
    public var excluded: [String]
    /// Delivered live only, never replayed to members (AVChatRoom messages: no history, as Tencent's FAQ says).
    public var liveOnly: Bool = false

    /// The users entitled to the event by name: its recipients, else the users it names; nobody for `.admins`.
    public var namedRecipients: [String] {
        self.audience == .admins ? [] : (self.recipients ?? self.users)
    }

    /// Whether a user subscriber receives the event, given whether they are a member of the group now (its
    /// ``routing``'s rule, with the membership given rather than changed by the event).
    public func isVisible(to userID: String, member: Bool) -> Bool {
        var routing = self.routing
        routing.joining = []
        routing.leaving = []
        var following = member
        return routing.admits(userID, following: &following)
    }

    /// Creates an event.
    public init(
        kind: Kind,
        groupID: String,
        actor: String?,
        byAdmin: Bool = false,
        users: [String] = [],
        changes: [String: JSONValue]? = nil,
        audience: Audience = .members,
        recipients: [String]? = nil,
        time: Int64,
        joined: [String] = [],
        left: [String] = [],
        excluded: [String] = []
    ) {
        self.kind = kind
        self.groupID = groupID
        self.actor = actor
        self.byAdmin = byAdmin
        self.users = users
        self.changes = changes
        self.audience = audience
        self.recipients = recipients
        self.time = time
        self.joined = joined
        self.left = left
        self.excluded = excluded
    }
}

/// The wire form of an event, without its `seq` (which the log assigns).
public struct EventBody: Codable, Sendable {
    public var kind: GroupEvent.Kind
    public var groupID: String
    public var actor: String?
    public var byAdmin: Bool?
    public var users: [String]
    public var changes: [String: JSONValue]?
    public var time: Int64

    /// The body of an event.
    public init(_ event: GroupEvent) {
        self.kind = event.kind
        self.groupID = event.groupID
        self.actor = event.actor
        self.byAdmin = event.byAdmin ? true : nil
        self.users = event.users
        self.changes = event.changes
        self.time = event.time
    }

    /// The names of the members ``writeJSON(to:)`` writes.
    var memberNames: [String] {
        ["groupID", "kind", "time", "users"] + (self.actor == nil ? [] : ["actor"]) + (self.byAdmin == nil ? [] : ["byAdmin"])
            + (self.changes == nil ? [] : ["changes"])
    }

    /// The event's wire JSON with its sequence number first: `{"seq":N,<body members>}`.
    public static func json(seq: Int64, body: [UInt8]) -> [UInt8] {
        CommittedEvent.json(seq: seq, body: body)
    }
}

extension EventBody: JSONWritable {
    /// The same JSON `JSONEncoder` writes (keys sorted, absent optionals left out), without Foundation: every
    /// committed event is encoded once, on the write path.
    public func writeJSON(to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "{"))
        if let actor = self.actor {
            JSONText.appendKey("actor", to: &bytes)
            JSONText.appendString(actor, to: &bytes)
            bytes.append(UInt8(ascii: ","))
        }
        if let byAdmin = self.byAdmin {
            JSONText.appendKey("byAdmin", to: &bytes)
            JSONText.appendBool(byAdmin, to: &bytes)
            bytes.append(UInt8(ascii: ","))
        }
        if let changes = self.changes {
            JSONText.appendKey("changes", to: &bytes)
            JSONValue.object(changes).writeJSON(to: &bytes)
            bytes.append(UInt8(ascii: ","))
        }
        JSONText.appendKey("groupID", to: &bytes)
        JSONText.appendString(self.groupID, to: &bytes)
        bytes.append(UInt8(ascii: ","))
        JSONText.appendKey("kind", to: &bytes)
        JSONText.appendString(self.kind.rawValue, to: &bytes)
        bytes.append(UInt8(ascii: ","))
        JSONText.appendKey("time", to: &bytes)
        JSONText.appendInteger(self.time, to: &bytes)
        bytes.append(UInt8(ascii: ","))
        JSONText.appendKey("users", to: &bytes)
        bytes.append(UInt8(ascii: "["))
        for (index, user) in self.users.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            JSONText.appendString(user, to: &bytes)
        }
        bytes.append(UInt8(ascii: "]"))
        bytes.append(UInt8(ascii: "}"))
    }
}
