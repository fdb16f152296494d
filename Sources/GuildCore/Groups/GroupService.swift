import Foundation
import GuildJSON

/// Group rules for every type, read from ``GroupPolicy`` (its `Rules` table): creation, profile, membership, roles,
/// ownership, attributes, messages, and the events each change appends in its own transaction.
///
/// The operations are grouped by concern in extensions: `+Membership` (add, kick, join, quit, applications),
/// `+Profile` (info, dismissal, receive options), `+Roles` (ownership, admins, mutes, member info),
/// `+Attributes` and `+Messages`.
public struct GroupService: Sendable {
    /// Where groups live.
    public var store: any Store
    /// The current time in ms since the Unix epoch.
    public var now: @Sendable () -> Int64
    /// How many groups one user may be in before an invitation gives `OVERLIMIT` (IM types).
    public var maximumGroupsPerUser: Int
    /// Attribute writes per group and second (Tencent's server limit: 5; over it, 10049).
    let attributeLimiter: RateLimiter
    /// What other areas do when a group is deleted, in the deletion's transaction (objects: the group's
    /// buckets go).
    public var deletionSteps: [GroupDeletionStep]
    /// The message rules' settings (retention, rates).
    public let messageOptions: MessageOptions
    /// `group.sendMessage` calls per user and second.
    let senderLimiter: RateLimiter
    /// AVChatRoom's per-group message rate.
    let liveRoomGate: LiveRoomGate

    /// Creates the service. `liveRoomWindowEnd` ends an AVChatRoom's rate window (real time unless a test
    /// decides; see ``LiveRoomGate``).
    public init(
        store: any Store,
        now: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970 * 1000) },
        maximumGroupsPerUser: Int = 10_000,
        attributeWritesPerSecond: Int = 5,
        messageOptions: MessageOptions = MessageOptions(),
        deletionSteps: [GroupDeletionStep] = [],
        liveRoomWindowEnd: @escaping @Sendable (Duration) async -> Void = LiveRoomGate.realTime
    ) {
        self.deletionSteps = deletionSteps
        self.store = store
        self.now = now
        self.maximumGroupsPerUser = maximumGroupsPerUser
        self.attributeLimiter = RateLimiter(limit: attributeWritesPerSecond, windowMilliseconds: 1000)
        self.messageOptions = messageOptions
        self.senderLimiter = RateLimiter(limit: messageOptions.messagesPerUserPerSecond, windowMilliseconds: 1000)
        self.liveRoomGate = LiveRoomGate(
            perWindow: max(1, messageOptions.liveRoomMessagesPerSecond * Int(messageOptions.liveRoomWindowMilliseconds) / 1000),
            window: .milliseconds(messageOptions.liveRoomWindowMilliseconds),
            windowEnd: liveRoomWindowEnd
        )
    }

    /// The largest page of `group.members`.
    public static let maximumPage = 200
    /// The largest page of `group.memberList` and `group.applications` (Tencent: 50).
    public static let maximumIMPage = 50

    // MARK: - Reads

    /// A group; any caller with a session (or an admin) may read any group (Kii).
    public func get(caller: Caller, groupID: String) async throws -> Group {
        try Self.requireReader(caller)
        return try await self.store.read { tx in try Self.existing(tx, groupID) }
    }

    /// A page of members in join order (who may: the policy's `readMembers`).
    public func members(
        caller: Caller,
        groupID: String,
        cursor: Int64,
        limit: Int
    ) async throws
        -> (members: [Membership], next: Int64)
    {
        let size = max(1, min(limit, Self.maximumPage))
        return try await self.store.read { tx in
            let context = try self.load(tx, caller, groupID)
            try context.require(context.policy.readMembers, "list the members")
            let page = try tx.groups.memberPage(groupID: groupID, after: cursor, limit: size + 1)
            if page.count > size {
                return (Array(page.prefix(size)), page[size - 1].joinSeq)
            }
            return (page, 0)
        }
    }

    /// The groups a user is a member of; the caller's own when `userID` is nil.
    public func memberOf(caller: Caller, userID: String?) async throws -> [Group] {
        let target = try self.listTarget(caller, userID)
        return try await self.store.read { try $0.groups.groups(memberOf: target) }
    }

    /// ``memberOf(caller:userID:)`` or ``ownerOf(caller:userID:)`` built by `body`, which gets the groups' ids in
    /// join order and the snapshot they were read from: the fast path for long lists, where the server keeps
    /// recently listed groups encoded.
    public func listGroups<T: Sendable>(
        caller: Caller,
        userID: String?,
        ownedOnly: Bool,
        _ body: @escaping @Sendable (_ ids: [String], _ snapshot: any Transaction) throws -> T
    ) async throws -> T {
        let target = try self.listTarget(caller, userID)
        return try await self.store.read { tx in try body(try tx.groups.groupIDs(of: target, ownedOnly: ownedOnly), tx) }
    }

    /// The groups a user owns; always a subset of ``memberOf(caller:userID:)``.
    public func ownerOf(caller: Caller, userID: String?) async throws -> [Group] {
        let target = try self.listTarget(caller, userID)
        return try await self.store.read { try $0.groups.groups(ownedBy: target) }
    }

    // MARK: - Creation

    /// A user to add when creating a group, and their role.
    public struct InitialMember: Sendable, Hashable, ExpressibleByStringLiteral {
        public var userID: String
        public var role: GroupRole
        /// An ordinary member.
        public init(stringLiteral userID: String) { self.init(userID: userID) }
        /// Creates an initial member.
        public init(userID: String, role: GroupRole = .member) {
            self.userID = userID
            self.role = role
        }
    }

    /// Creates a group owned by the caller (or, for an admin, by `ownerID`, or by nobody). Unknown initial
    /// members do not fail the call; they come back as not found.
    public func create(
        caller: Caller,
        name: String,
        groupID: String?,
        type: GroupType,
        members: [InitialMember],
        ownerID: String? = nil,
        profile: ProfileChange = ProfileChange()
    ) async throws -> (group: Group, notFound: [String]) {
        let policy = GroupPolicy.of(type)
        try GroupRules.validateName(name, policy)
        if let groupID {
            if policy.kiiRules { try GroupRules.validateGroupID(groupID) } else { try GroupRules.validateIMGroupID(groupID, type: type) }
        }
        try profile.validate()
        if let option = profile.addOption, option != policy.defaultAddOption, policy.join == .addedOnly {
            throw GuildError(.unsupported, "\(type.rawValue) groups are joined by invitation only; addOpt stays FORBID", field: "addOpt")
        }
        if profile.allMuted != nil {
            throw GuildError(.imInvalidParameters, "allMuted is set with group.setInfo, not at creation", field: "allMuted")
        }
        let initial = Self.unique(members, by: \.userID)
        for member in initial {
            guard member.role != .owner else {
                throw GuildError(.imInvalidParameters, "the owner role is given only by transferOwner", field: "members")
            }
            guard policy.roles.contains(member.role) else {
                throw GuildError(.imInvalidParameters, "\(type.rawValue) groups have no \(member.role.rawValue) role", field: "members")
            }
        }
        let owner: String?
        if let ownerID {
            guard caller.isAdmin || caller.session?.user.id == ownerID else {
                throw GuildError(.permissionDenied, "only an admin may create a group for another owner", field: "owner")
            }
            owner = ownerID
        } else if let session = caller.session {
            owner = session.user.id
        } else if caller.isAdmin {
            owner = nil
        } else {
            throw GuildError(.unauthorized, "group.create needs a session")
        }
        if policy.invite.isEmpty, initial.contains(where: { $0.userID != owner }) {
            throw GuildError(.unsupported, "\(type.rawValue) groups cannot be created with members; they join themselves", field: "members")
        }
        let id = groupID ?? Self.newGroupID(type)
        let now = self.now()
        let actor = caller.session?.user.id
        let byAdmin = caller.session == nil
        return try await self.store.write { tx in
            if let owner, try !tx.groups.userExists(owner) {
                throw GuildError(.userNotFound, "no user with id \(owner)", field: "owner")
            }
            if try tx.imGroups.dismissedType(id) != nil {
                throw Self.idTaken(id, policy)
            }
            do {
                try tx.groups.insertGroup(id: id, name: name, type: type, now: now)
            } catch let error as GuildError where error.code == .groupAlreadyExists {
                throw Self.idTaken(id, policy)
            }
            var group =
                try tx.groups.group(id) ?? Group(id: id, name: name, type: type, ownerID: nil, memberCount: 0, createdAt: now, modifiedAt: now)
            group.addOption = policy.defaultAddOption
            _ = profile.apply(to: &group)
            try tx.groups.saveProfile(group)
            var added: [String] = []
            var notFound: [String] = []
            if let owner {
                try tx.groups.insertMember(groupID: id, userID: owner, role: .owner, now: now)
                added.append(owner)
            }
            for member in initial where member.userID != owner {
                guard try tx.groups.userExists(member.userID) else {
                    notFound.append(member.userID)
                    continue
                }
                if let limit = policy.memberLimit, added.count >= limit {
                    throw GuildError(.groupFull, "\(type.rawValue) groups have at most \(limit) members", field: "members")
                }
                try tx.groups.insertMember(groupID: id, userID: member.userID, role: member.role, now: now)
                added.append(member.userID)
            }
            try tx.append(
                GroupEvent(
                    kind: .groupCreated,
                    groupID: id,
                    actor: actor,
                    byAdmin: byAdmin,
                    users: added,
                    changes: ["name": .string(name), "type": .string(type.rawValue)],
                    time: now,
                    joined: added
                )
            )
            return (try Self.existing(tx, id), notFound)
        }
    }

    // MARK: - Helpers

    /// A group loaded in a transaction with the caller's standing in it and its type's policy.
    struct Context {
        var group: Group
        var membership: Membership?
        var policy: GroupPolicy
        var standing: Actors
        var caller: Caller
        var now: Int64

        /// The acting user, nil for an admin without a session.
        var actor: String? { self.caller.session?.user.id }
        /// Whether the caller acted with admin rights only (no role in the group).
        var byAdmin: Bool { self.standing.contains(.appAdmin) && self.standing.isDisjoint(with: [.owner, .admin, .member]) }
        /// The caller's role, nil when not a member.
        var role: GroupRole? { self.membership?.role }

        /// An event by the caller on this group.
        func event(
            _ kind: GroupEvent.Kind,
            users: [String] = [],
            changes: [String: JSONValue]? = nil,
            audience: GroupEvent.Audience = .members,
            recipients: [String]? = nil,
            joined: [String] = [],
            left: [String] = []
        ) -> GroupEvent {
            GroupEvent(
                kind: kind,
                groupID: self.group.id,
                actor: self.actor,
                byAdmin: self.byAdmin,
                users: users,
                changes: changes,
                audience: audience,
                recipients: recipients,
                time: self.now,
                joined: joined,
                left: left
            )
        }

        /// Refuses unless the caller's standing is in `rule`: 10007 `UNSUPPORTED_FOR_TYPE` when no client role
        /// may ever do it in this type; else not a member, or not allowed (Kii's rules: `PERMISSION_DENIED`).
        func require(_ rule: Actors, _ what: String) throws {
            guard !GroupPolicy.allows(rule, self.standing) else { return }
            let type = self.policy.type.rawValue
            if rule.isDisjoint(with: [.owner, .admin, .member, .outsider]) {
                let how = rule.contains(.appAdmin) ? " (only an app admin may)" : ""
                throw GuildError(.unsupported, "\(type) groups do not let members \(what)\(how)")
            }
            if self.policy.kiiRules {
                throw GuildError(.permissionDenied, "the caller may not \(what) in this group")
            }
            if self.membership == nil && rule.isDisjoint(with: .outsider) {
                throw GuildError(.notAMember, "the caller is not a member of \(self.group.id)")
            }
            throw GuildError(.notAllowed, "\(self.role?.rawValue ?? "a non-member") may not \(what) in \(type) groups")
        }

        /// Refuses acting on `target` when the caller is an admin and the target is not an ordinary member,
        /// or the target is the owner.
        func requireAuthority(over target: Membership, _ what: String) throws {
            if target.role == .owner {
                throw self.denied("\(what) the owner")
            }
            if target.role == .admin && self.standing.isDisjoint(with: [.owner, .appAdmin]) {
                throw self.denied("\(what) another admin")
            }
        }

        /// Not allowed, in the codes of the type's rules.
        func denied(_ what: String) -> GuildError {
            self.policy.kiiRules
                ? GuildError(.permissionDenied, "the caller may not \(what) in this group")
                : GuildError(.notAllowed, "the caller may not \(what) in \(self.policy.type.rawValue) groups")
        }

        /// A member of the group, or 10007 `NOT_A_MEMBER` naming them.
        func member(_ tx: any Transaction, _ userID: String, field: String = "userID") throws -> Membership {
            guard let membership = try tx.groups.membership(groupID: self.group.id, userID: userID) else {
                throw GuildError(.notAMember, "\(userID) is not a member of \(self.group.id)", field: field)
            }
            return membership
        }

        /// The audience of member-change events in this type.
        var memberAudience: GroupEvent.Audience { self.policy.memberEvents ? .members : .admins }
    }

    func load(_ tx: any Transaction, _ caller: Caller, _ groupID: String) throws -> Context {
        try Self.requireReader(caller)
        guard let (group, membership) = try tx.groups.groupAndMembership(groupID, userID: caller.session?.user.id) else {
            _ = try Self.existing(tx, groupID)
            throw Self.notFound(groupID)
        }
        return Context(
            group: group,
            membership: membership,
            policy: GroupPolicy.of(group.type),
            standing: GroupRules.standing(of: caller, in: membership),
            caller: caller,
            now: self.now()
        )
    }

    /// The group, or `GROUP_DISMISSED` (10010) for a dismissed IM group, or `GROUP_NOT_FOUND`.
    static func existing(_ tx: any Transaction, _ groupID: String) throws -> Group {
        if let group = try tx.groups.group(groupID) { return group }
        if try tx.imGroups.dismissedType(groupID) != nil {
            throw GuildError(.groupDismissed, "group \(groupID) was dismissed", field: "groupID")
        }
        throw Self.notFound(groupID)
    }

    func listTarget(_ caller: Caller, _ userID: String?) throws -> String {
        try Self.requireReader(caller)
        if let userID { return userID }
        return try caller.requireUserID()
    }

    static func requireReader(_ caller: Caller) throws {
        guard caller.session != nil || caller.isAdmin else {
            throw GuildError(.unauthorized, "this call needs a session")
        }
    }

    static func notFound(_ groupID: String) -> GuildError {
        GuildError(.groupNotFound, "no group with id \(groupID)", field: "groupID")
    }

    static func idTaken(_ id: String, _ policy: GroupPolicy) -> GuildError {
        policy.kiiRules
            ? GuildError(.groupAlreadyExists, "a group with id \(id) already exists", field: "groupID")
            : GuildError(.groupIDInUse, "the group id \(id) is in use (or was, by a dismissed group)", field: "groupID")
    }

    /// Each id once, in order of first appearance.
    static func unique(_ ids: [String]) -> [String] { Self.unique(ids, by: { $0 }) }

    /// The first item of each user, in order.
    static func unique<T>(_ items: [T], by userID: (T) -> String) -> [T] {
        var seen = Set<String>()
        return items.filter { seen.insert(userID($0)).inserted }
    }

    /// A generated id: Kii style for Basic, `@TGS#...` (Community `@TGS#_...`) for the IM types.
    static func newGroupID(_ type: GroupType) -> String {
        let random = RandomID.hex()
        switch type {
        case .basic: return "g" + random.prefix(24)
        case .community: return "@TGS#_" + random.prefix(20).uppercased()
        default: return "@TGS#" + random.prefix(20).uppercased()
        }
    }
}

/// What an area does to its records when a group is deleted, in the deletion's transaction, before the
/// group's members leave it.
public typealias GroupDeletionStep = @Sendable (_ groupID: String, _ transaction: any Transaction, _ now: Int64) throws -> Void
