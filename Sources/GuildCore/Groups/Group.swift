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
    /// Last change of the profile or owner, ms since the Unix epoch.
    public var modifiedAt: Int64
    /// The IM profile: introduction (at most 400 bytes).
    public var introduction: String = ""
    /// The group notice (at most 400 bytes).
    public var notification: String = ""
    /// The group's picture (at most 500 bytes).
    public var faceURL: String = ""
    /// How non-members join (types whose policy joins by add option).
    public var addOption: AddOption = .forbid
    /// Whether every ordinary member is muted (Tencent's shut-up-all).
    public var allMuted: Bool = false
    /// Custom profile fields: keys at most 16 bytes, values at most 512 bytes.
    public var custom: [String: String] = [:]

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

/// A member as the IM member list shows them.
public struct MemberInfo: Sendable, Hashable {
    public var userID: String
    public var role: GroupRole
    /// When they joined, ms since the Unix epoch.
    public var joinedAt: Int64
    /// Their name card in this group.
    public var nameCard: String
    /// The user's display name (Tencent's nickName).
    public var nickName: String?
    /// Muted until this time, ms since the Unix epoch; 0 when not muted.
    public var muteUntil: Int64
    /// Their message receive option.
    public var receiveOption: ReceiveOption
    /// Custom member fields.
    public var custom: [String: String]

    /// Creates a member description.
    public init(
        userID: String,
        role: GroupRole,
        joinedAt: Int64,
        nameCard: String,
        nickName: String?,
        muteUntil: Int64,
        receiveOption: ReceiveOption,
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

/// Tencent's group message receive option.
public enum ReceiveOption: String, Sendable, Hashable, CaseIterable, Codable {
    /// Receive messages, and push notifications when offline.
    case receive = "RECEIVE"
    /// Receive no group messages.
    case notReceive = "NOT_RECEIVE"
    /// Receive messages online, no push notification offline.
    case receiveNotNotify = "RECEIVE_NOT_NOTIFY"
}

/// A request to join a group (Tencent's group application of type JOIN).
public struct JoinApplication: Sendable, Hashable {
    /// What became of an application.
    public enum Status: String, Sendable, Hashable, Codable {
        case pending = "PENDING"
        case accepted = "ACCEPTED"
        case refused = "REFUSED"
    }

    public var id: Int64
    public var groupID: String
    /// The applicant.
    public var fromUser: String
    /// The applicant's message.
    public var message: String
    public var status: Status
    /// Who accepted or refused it.
    public var handledBy: String?
    /// The handler's message.
    public var handledMessage: String
    /// ms since the Unix epoch.
    public var createdAt: Int64
    public var handledAt: Int64?

    /// A new application, pending since `now`, as the store just numbered it.
    public static func pending(id: Int64, groupID: String, fromUser: String, message: String, now: Int64) -> JoinApplication {
        JoinApplication(
            id: id,
            groupID: groupID,
            fromUser: fromUser,
            message: message,
            status: .pending,
            handledBy: nil,
            handledMessage: "",
            createdAt: now,
            handledAt: nil
        )
    }

    /// Creates an application.
    public init(
        id: Int64,
        groupID: String,
        fromUser: String,
        message: String,
        status: Status,
        handledBy: String?,
        handledMessage: String,
        createdAt: Int64,
        handledAt: Int64?
    ) {
        self.id = id
        self.groupID = groupID
        self.fromUser = fromUser
        self.message = message
        self.status = status
        self.handledBy = handledBy
        self.handledMessage = handledMessage
        self.createdAt = createdAt
        self.handledAt = handledAt
    }
}

/// That a group exists, and who owns it (``GroupRecords/groupOwnership(_:)``).
public struct GroupOwnership: Sendable, Hashable {
    /// The owner's user id; nil for an ownerless group.
    public var ownerID: String?

    /// Creates the value.
    public init(ownerID: String?) {
        self.ownerID = ownerID
    }
}

/// A group's attributes (Tencent's group attributes) and the version a write must name to win.
public struct GroupAttributes: Sendable, Hashable {
    public var values: [String: String]
    /// Bumped by every write.
    public var version: Int64

    /// Creates attributes.
    public init(values: [String: String], version: Int64) {
        self.values = values
        self.version = version
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
