import GuildJSON

/// A group event as subscribers receive it.
public struct GuildEvent: Codable, Hashable, Sendable {
    /// The global, gap-free sequence number.
    public var seq: Int64
    /// Tencent's group listener name: `groupCreated`, `memberEnter`, `memberLeave`, `memberKicked`,
    /// `memberInvited`, `groupInfoChanged`, `groupDismissed`, `quitFromGroup`, `groupAttributeChanged`,
    /// `memberInfoChanged`, `grantAdministrator`, `revokeAdministrator`, `receiveJoinApplication`,
    /// `applicationProcessed`, `allMembersMuted`, `newMessage`, `messageRevoked` or `unreadChanged`.
    public var kind: String
    public var groupID: String
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

    /// Creates an event.
    public init(
        seq: Int64,
        kind: String,
        groupID: String,
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
