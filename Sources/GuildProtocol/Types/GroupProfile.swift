/// A group with its IM profile, as `group.getInfo`, `group.joinedList` and `group.setInfo` show it.
public struct GroupProfile: Codable, Hashable, Sendable {
    public var groupID: String
    public var name: String
    /// `Basic`, `Work`, `Public`, `Meeting`, `AVChatRoom` or `Community`.
    public var type: String
    /// The owner's userID; null for an ownerless group.
    public var owner: String?
    public var memberCount: Int
    /// The type's member limit; null for unlimited.
    public var memberLimit: Int?
    public var introduction: String
    public var notification: String
    public var faceURL: String
    /// `FORBID`, `AUTH` or `ANY`.
    public var addOpt: String
    /// Whether every ordinary member is muted.
    public var allMuted: Bool
    public var custom: [String: String]
    /// ms since the Unix epoch.
    public var createdAt: Int64
    public var modifiedAt: Int64

    /// Creates a profile.
    public init(
        groupID: String,
        name: String,
        type: String,
        owner: String?,
        memberCount: Int,
        memberLimit: Int?,
        introduction: String,
        notification: String,
        faceURL: String,
        addOpt: String,
        allMuted: Bool,
        custom: [String: String],
        createdAt: Int64,
        modifiedAt: Int64
    ) {
        self.groupID = groupID
        self.name = name
        self.type = type
        self.owner = owner
        self.memberCount = memberCount
        self.memberLimit = memberLimit
        self.introduction = introduction
        self.notification = notification
        self.faceURL = faceURL
        self.addOpt = addOpt
        self.allMuted = allMuted
        self.custom = custom
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
        try container.encode(self.memberLimit, forKey: .memberLimit)  // explicit null for unlimited
        try container.encode(self.introduction, forKey: .introduction)
        try container.encode(self.notification, forKey: .notification)
        try container.encode(self.faceURL, forKey: .faceURL)
        try container.encode(self.addOpt, forKey: .addOpt)
        try container.encode(self.allMuted, forKey: .allMuted)
        try container.encode(self.custom, forKey: .custom)
        try container.encode(self.createdAt, forKey: .createdAt)
        try container.encode(self.modifiedAt, forKey: .modifiedAt)
    }
}

/// A member with their IM details (`group.memberList`, `group.membersInfo`).
public struct GroupMemberDetail: Codable, Hashable, Sendable {
    public var userID: String
    /// `owner`, `admin` or `member`.
    public var role: String
    /// ms since the Unix epoch.
    public var joinedAt: Int64
    public var nameCard: String
    /// The user's display name.
    public var nickName: String?
    /// Muted until (ms since the Unix epoch); 0 when not muted.
    public var muteUntil: Int64
    /// `RECEIVE`, `NOT_RECEIVE` or `RECEIVE_NOT_NOTIFY`.
    public var receiveOption: String
    public var custom: [String: String]

    /// Creates a member description.
    public init(
        userID: String,
        role: String,
        joinedAt: Int64,
        nameCard: String,
        nickName: String?,
        muteUntil: Int64,
        receiveOption: String,
        custom: [String: String]
    ) {
        self.userID = userID
        self.role = role
        self.joinedAt = joinedAt
        self.nameCard = nameCard
        self.nickName = nickName
        self.muteUntil = muteUntil
        self.receiveOption = receiveOption
        self.custom = custom
    }
}

/// A join application (`group.applications`).
public struct GroupApplicationInfo: Codable, Hashable, Sendable {
    public var applicationID: Int64
    public var groupID: String
    /// The applicant.
    public var fromUser: String
    /// Tencent's application type: always `JOIN` (invitations need no approval).
    public var type: String
    public var requestMsg: String
    /// `PENDING`, `ACCEPTED` or `REFUSED`.
    public var status: String
    public var handledBy: String?
    public var handledMsg: String
    /// ms since the Unix epoch.
    public var createdAt: Int64
    public var handledAt: Int64?

    /// Creates an application description.
    public init(
        applicationID: Int64,
        groupID: String,
        fromUser: String,
        type: String,
        requestMsg: String,
        status: String,
        handledBy: String?,
        handledMsg: String,
        createdAt: Int64,
        handledAt: Int64?
    ) {
        self.applicationID = applicationID
        self.groupID = groupID
        self.fromUser = fromUser
        self.type = type
        self.requestMsg = requestMsg
        self.status = status
        self.handledBy = handledBy
        self.handledMsg = handledMsg
        self.createdAt = createdAt
        self.handledAt = handledAt
    }
}

/// One group type's rules as `group.types` shows them: the policy table, one object a type. Who-may fields
/// list standings: `owner`, `admin`, `member`, `nonMember`, `appAdmin` (a peer with admin rights).
public struct GroupTypeRules: Codable, Hashable, Sendable {
    public var type: String
    public var roles: [String]
    /// Whether Kii's rules and codes apply (Basic) rather than Tencent's.
    public var kiiRules: Bool
    /// `addedOnly` or `byAddOpt`.
    public var join: String
    public var defaultAddOpt: String
    public var invite: [String]
    public var ownerMayQuit: Bool
    public var editProfile: [String]
    public var kick: [String]
    public var mute: [String]
    public var dismiss: [String]
    public var transferOwner: [String]
    public var setMemberRole: [String]
    public var handleApplications: [String]
    public var readMembers: [String]
    public var memberLimit: Int?
    public var unreadCounts: Bool
    public var preJoinHistory: Bool
    public var memberEvents: Bool
    public var roleEvents: Bool
    public var muteEvents: Bool
    public var quitEvent: Bool
    public var inJoinedList: Bool
    public var attributes: Bool

    /// Creates a description (every field, in table order).
    public init(
        type: String,
        roles: [String],
        kiiRules: Bool,
        join: String,
        defaultAddOpt: String,
        invite: [String],
        ownerMayQuit: Bool,
        editProfile: [String],
        kick: [String],
        mute: [String],
        dismiss: [String],
        transferOwner: [String],
        setMemberRole: [String],
        handleApplications: [String],
        readMembers: [String],
        memberLimit: Int?,
        unreadCounts: Bool,
        preJoinHistory: Bool,
        memberEvents: Bool,
        roleEvents: Bool,
        muteEvents: Bool,
        quitEvent: Bool,
        inJoinedList: Bool,
        attributes: Bool
    ) {
        self.type = type
        self.roles = roles
        self.kiiRules = kiiRules
        self.join = join
        self.defaultAddOpt = defaultAddOpt
        self.invite = invite
        self.ownerMayQuit = ownerMayQuit
        self.editProfile = editProfile
        self.kick = kick
        self.mute = mute
        self.dismiss = dismiss
        self.transferOwner = transferOwner
        self.setMemberRole = setMemberRole
        self.handleApplications = handleApplications
        self.readMembers = readMembers
        self.memberLimit = memberLimit
        self.unreadCounts = unreadCounts
        self.preJoinHistory = preJoinHistory
        self.memberEvents = memberEvents
        self.roleEvents = roleEvents
        self.muteEvents = muteEvents
        self.quitEvent = quitEvent
        self.inJoinedList = inJoinedList
        self.attributes = attributes
    }
}
