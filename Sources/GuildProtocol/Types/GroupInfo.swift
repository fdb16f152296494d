/// A group as the wire shows it.
public struct GroupInfo: Codable, Hashable, Sendable {
    public var groupID: String
    public var name: String
    /// `Basic` (Kii rules) or an IM type (`Work`, `Public`, `Meeting`, `AVChatRoom`, `Community`).
    public var type: String
    /// The owner's userID; null for an ownerless group.
    public var owner: String?
    public var memberCount: Int
    /// ms since the Unix epoch.
    public var createdAt: Int64
    public var modifiedAt: Int64

    /// Creates a group description.
    public init(groupID: String, name: String, type: String, owner: String?, memberCount: Int, createdAt: Int64, modifiedAt: Int64) {
        self.groupID = groupID
        self.name = name
        self.type = type
        self.owner = owner
        self.memberCount = memberCount
        self.createdAt = createdAt
        self.modifiedAt = modifiedAt
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(self.groupID, forKey: .groupID)
        try container.encode(self.name, forKey: .name)
        try container.encode(self.type, forKey: .type)
        try container.encode(self.owner, forKey: .owner)  // explicit null for ownerless groups
        try container.encode(self.memberCount, forKey: .memberCount)
        try container.encode(self.createdAt, forKey: .createdAt)
        try container.encode(self.modifiedAt, forKey: .modifiedAt)
    }
}

/// A member of a group.
public struct GroupMember: Codable, Hashable, Sendable {
    public var userID: String
    /// `owner`, `admin` or `member`.
    public var role: String
    /// ms since the Unix epoch.
    public var joinedAt: Int64

    /// Creates a member description.
    public init(userID: String, role: String, joinedAt: Int64) {
        self.userID = userID
        self.role = role
        self.joinedAt = joinedAt
    }
}

/// What happened to one user of `group.addMembers` or `group.removeMembers`.
public struct MemberResultEntry: Codable, Hashable, Sendable {
    public var userID: String
    /// `SUCC`, `INVALID`, `PENDING`, `FAIL` or `OVERLIMIT`.
    public var result: String
    /// For `FAIL`: why (`USER_NOT_FOUND`, `NOT_A_MEMBER`, `PERMISSION_DENIED`, `OWNER_CANNOT_LEAVE`, ...).
    public var reason: String?

    /// Creates an entry.
    public init(userID: String, result: String, reason: String? = nil) {
        self.userID = userID
        self.result = result
        self.reason = reason
    }
}
