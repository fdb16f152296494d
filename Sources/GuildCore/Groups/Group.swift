/// A group of users. One model for every group type: Kii's `Basic` and Tencent IM's types.
public struct Group: Sendable, Hashable {
    /// The group id (Kii rules: at most 30 of `[a-z0-9_.-]`).
    public var id: String
    /// The name (at most 190 characters; not unique).
    public var name: String
    /// The type, which decides the rules (see ``GroupPolicy``).
    public var type: GroupType
    /// The owner's user id; nil for an ownerless group (its owner user was deleted).
    public var ownerID: String?
    /// How many members it has (the owner included).
    public var memberCount: Int
    /// Creation time, ms since the Unix epoch.
    public var createdAt: Int64
    /// Last change of name or owner, ms since the Unix epoch.
    public var modifiedAt: Int64

    /// Creates a group.
    public init(id: String, name: String, type: GroupType, ownerID: String?, memberCount: Int, createdAt: Int64, modifiedAt: Int64) {
        self.id = id
        self.name = name
        self.type = type
        self.ownerID = ownerID
        self.memberCount = memberCount
        self.createdAt = createdAt
        self.modifiedAt = modifiedAt
    }
}

/// A member of a group and their role in it.
public struct Membership: Sendable, Hashable {
    public var groupID: String
    public var userID: String
    public var role: GroupRole
    /// When the user joined, ms since the Unix epoch.
    public var joinedAt: Int64
    /// The event sequence number of the join; members page in this order.
    public var joinSeq: Int64

    /// Creates a membership.
    public init(groupID: String, userID: String, role: GroupRole, joinedAt: Int64, joinSeq: Int64) {
        self.groupID = groupID
        self.userID = userID
        self.role = role
        self.joinedAt = joinedAt
        self.joinSeq = joinSeq
    }
}

/// A member's role. Tencent's numbers: member 200, admin 300, owner 400.
public enum GroupRole: String, Sendable, Hashable, CaseIterable, Codable {
    case owner
    case admin
    case member
}

/// The group types: Kii's `Basic`, and Tencent IM's `Work`, `Public`, `Meeting`, `AVChatRoom` and `Community`.
public enum GroupType: String, Sendable, Hashable, CaseIterable, Codable {
    case basic = "Basic"
    case work = "Work"
    case `public` = "Public"
    case meeting = "Meeting"
    case avChatRoom = "AVChatRoom"
    case community = "Community"
}

/// What happened to one user of a per-user group operation (Tencent's result names).
public enum MemberResult: String, Sendable, Hashable, Codable {
    /// Done.
    case succ = "SUCC"
    /// Nothing to do (already a member, or not one).
    case invalid = "INVALID"
    /// Waiting for approval.
    case pending = "PENDING"
    /// Refused; `reason` says why.
    case fail = "FAIL"
    /// The user is in too many groups.
    case overlimit = "OVERLIMIT"
}

/// The outcome for one user of `group.addMembers` or `group.removeMembers`.
public struct MemberOutcome: Sendable, Hashable {
    public var userID: String
    public var result: MemberResult
    /// For `FAIL`: an error reason (`USER_NOT_FOUND`, `NOT_A_MEMBER`, `PERMISSION_DENIED`, ...).
    public var reason: String?

    /// Creates an outcome.
    public init(userID: String, result: MemberResult, reason: String? = nil) {
        self.userID = userID
        self.result = result
        self.reason = reason
    }
}
