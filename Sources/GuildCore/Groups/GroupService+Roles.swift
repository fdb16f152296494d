import GuildJSON

extension GroupService {
    /// Which members `group.memberList` returns (Tencent's `V2TIMGroupMemberFilter`).
    public enum MemberFilter: String, Sendable, Hashable, CaseIterable {
        case all = "ALL"
        case owner = "OWNER"
        case admin = "ADMIN"
        case common = "COMMON"

        var roles: Set<GroupRole> {
            switch self {
            case .all: [.owner, .admin, .member]
            case .owner: [.owner]
            case .admin: [.admin]
            case .common: [.member]
            }
        }
    }

    /// The changes to one member that `group.setMemberInfo` makes; nil leaves a field as it is.
    public struct MemberChange: Sendable, Hashable {
        public var nameCard: String?
        public var role: GroupRole?
        /// Muted until this time (ms since the Unix epoch); 0 or a past time unmutes.
        public var muteUntil: Int64?
        public var custom: [String: String]?

        /// Creates a change.
        public init(nameCard: String? = nil, role: GroupRole? = nil, muteUntil: Int64? = nil, custom: [String: String]? = nil) {
            self.nameCard = nameCard
            self.role = role
            self.muteUntil = muteUntil
            self.custom = custom
        }
    }

    /// The longest mute, in seconds (Tencent: 0xFFFFFFFF).
    public static let maximumMuteSeconds: Int64 = 0xFFFF_FFFF

    /// Makes `userID` the owner (who may: the policy's `transfer`; an ownerless group only by an admin). Under
    /// Kii's rules a non-member becomes a member; under Tencent's the new owner must be a member. The old owner
    /// stays a member; members get `groupInfoChanged` with change type 5 (owner).
    public func changeOwner(caller: Caller, groupID: String, userID: String) async throws -> Group {
        try await self.store.write { tx in
            let context = try self.load(tx, caller, groupID)
            try context.require(context.policy.transfer, "transfer ownership")
            guard try tx.groups.userExists(userID) else {
                throw GuildError(.userNotFound, "no user with id \(userID)", field: "userID")
            }
            let target = try tx.groups.membership(groupID: groupID, userID: userID)
            if target?.role == .owner { return context.group }
            if target == nil && !context.policy.kiiRules {
                throw GuildError(.notAMember, "the new owner must be a member of the group", field: "userID")
            }
            if let old = context.group.ownerID { try tx.groups.setRole(groupID: groupID, userID: old, role: .member) }
            if target == nil {
                try tx.groups.insertMember(groupID: groupID, userID: userID, role: .owner, now: context.now)
                try tx.append(context.event(.memberEnter, users: [userID], audience: context.memberAudience, joined: [userID]))
            } else {
                try tx.groups.setRole(groupID: groupID, userID: userID, role: .owner)
                try tx.imGroups.setMute(groupID: groupID, userID: userID, until: 0)
            }
            try tx.groups.touchGroup(id: groupID, now: context.now)
            let previous: JSONValue = context.group.ownerID.map { .string($0) } ?? .null
            try tx.append(
                context.event(
                    .groupInfoChanged,
                    users: [userID],
                    changes: ProfileChange.eventChanges(["owner": .string(userID), "previousOwner": previous])
                )
            )
            return try Self.existing(tx, groupID)
        }
    }

    /// Makes a member an admin or an ordinary member again (who may: the policy's `setRole`; only types with
    /// admins). The owner's role changes only by transfer. Members get `grantAdministrator` or
    /// `revokeAdministrator` (Meeting: app admins only).
    public func setMemberRole(caller: Caller, groupID: String, userID: String, role: GroupRole) async throws {
        try await self.store.write { tx in
            let context = try self.load(tx, caller, groupID)
            try self.setRole(tx, context, userID, role)
        }
    }

    private func setRole(_ tx: any Transaction, _ context: Context, _ userID: String, _ role: GroupRole) throws {
        try context.require(context.policy.setRole, "change member roles")
        guard role != .owner else {
            throw GuildError(.imInvalidParameters, "the owner role is given only by transferOwner", field: "role")
        }
        let target = try context.member(tx, userID)
        guard target.role != .owner else { throw context.denied("change the owner's role") }
        guard target.role != role else { return }
        try tx.groups.setRole(groupID: context.group.id, userID: userID, role: role)
        try tx.append(
            context.event(
                role == .admin ? .grantAdministrator : .revokeAdministrator,
                users: [userID],
                audience: context.policy.roleEvents ? .members : .admins
            )
        )
    }

    /// Mutes a member for `seconds` (0 unmutes). Who may: the policy's `mute`; admins mute only ordinary
    /// members; nobody mutes the owner. The mute survives leaving and re-joining. Members get
    /// `memberInfoChanged` (where the type sends it).
    public func muteMember(caller: Caller, groupID: String, userID: String, seconds: Int64) async throws -> Int64 {
        guard (0...Self.maximumMuteSeconds).contains(seconds) else {
            throw GuildError(.imInvalidParameters, "seconds must be 0 to \(Self.maximumMuteSeconds)", field: "seconds")
        }
        return try await self.store.write { tx in
            let context = try self.load(tx, caller, groupID)
            let until = seconds == 0 ? 0 : context.now + seconds * 1000
            try self.mute(tx, context, userID, until: until)
            return until
        }
    }

    private func mute(_ tx: any Transaction, _ context: Context, _ userID: String, until: Int64) throws {
        try context.require(context.policy.mute, "mute members")
        let target = try context.member(tx, userID)
        try context.requireAuthority(over: target, "mute")
        let until = until > context.now ? until : 0
        try tx.imGroups.setMute(groupID: context.group.id, userID: userID, until: until)
        try tx.append(
            context.event(
                .memberInfoChanged,
                users: [userID],
                changes: ["muteUntil": .int(until)],
                audience: context.policy.muteEvents ? .members : .admins
            )
        )
    }

    /// Changes a member's name card and custom fields (themself, or the owner and admins for others), role
    /// (as ``setMemberRole(caller:groupID:userID:role:)``) and mute (as ``muteMember(caller:groupID:userID:seconds:)``),
    /// all in one transaction.
    public func setMemberInfo(caller: Caller, groupID: String, userID: String, change: MemberChange) async throws {
        if let nameCard = change.nameCard { try GroupRules.validateBytes(nameCard, max: GroupRules.Limit.nameCard, field: "nameCard") }
        if let custom = change.custom { try GroupRules.validateCustom(custom, field: "custom") }
        try await self.store.write { tx in
            let context = try self.load(tx, caller, groupID)
            let target = try context.member(tx, userID)
            if change.nameCard != nil || change.custom != nil {
                if context.actor != userID {
                    try context.require(.managers, "change another member's name card or fields")
                    try context.requireAuthority(over: target, "change the fields of")
                }
                try tx.imGroups.updateMember(groupID: groupID, userID: userID, nameCard: change.nameCard, custom: change.custom, receiveOption: nil)
            }
            if let role = change.role { try self.setRole(tx, context, userID, role) }
            if let muteUntil = change.muteUntil { try self.mute(tx, context, userID, until: muteUntil) }
        }
    }

    /// A page of at most `limit` (at most 50) members (Tencent's `getGroupMemberList`): pass `nextSeq` back until it is 0. Join
    /// order, so members who join meanwhile come at the end and none is skipped or repeated.
    public func memberList(
        caller: Caller,
        groupID: String,
        filter: MemberFilter,
        nextSeq: Int64,
        limit: Int = GroupService.maximumIMPage
    ) async throws -> (members: [MemberInfo], nextSeq: Int64) {
        let size = max(1, min(limit, Self.maximumIMPage))
        return try await self.store.read { tx in
            let context = try self.load(tx, caller, groupID)
            try context.require(context.policy.readMembers, "list the members")
            let page = try tx.imGroups.memberInfos(groupID: groupID, roles: filter.roles, after: nextSeq, limit: size + 1)
            let members = page.prefix(size)
            let next = page.count > size ? members[members.count - 1].cursor : 0
            return (members.map(\.info), next)
        }
    }

    /// The IM details of the named members (those who are not members are left out).
    public func membersInfo(caller: Caller, groupID: String, userIDs: [String]) async throws -> [MemberInfo] {
        let ids = Self.unique(userIDs)
        guard ids.count <= Self.maximumInfoIDs else {
            throw GuildError(.imInvalidParameters, "at most \(Self.maximumInfoIDs) users at once", field: "userIDs")
        }
        return try await self.store.read { tx in
            let context = try self.load(tx, caller, groupID)
            try context.require(context.policy.readMembers, "read members")
            return try tx.imGroups.memberInfos(groupID: groupID, userIDs: ids)
        }
    }

    /// What deleting a user does to groups, inside the deletion's transaction: their memberships end
    /// (`memberLeave` with reason `userDeleted`), and groups they owned become ownerless (Kii).
    public static func removeDeletedUser(_ userID: String, in tx: any Transaction, now: Int64) throws {
        for membership in try tx.groups.memberships(userID: userID) {
            try tx.groups.deleteMember(groupID: membership.groupID, userID: userID)
            try tx.append(
                GroupEvent(
                    kind: .memberLeave,
                    groupID: membership.groupID,
                    actor: nil,
                    users: [userID],
                    changes: ["reason": "userDeleted"],
                    time: now,
                    left: [userID]
                )
            )
            if membership.role == .owner {
                try tx.groups.touchGroup(id: membership.groupID, now: now)
                try tx.append(
                    GroupEvent(
                        kind: .groupInfoChanged,
                        groupID: membership.groupID,
                        actor: nil,
                        changes: ProfileChange.eventChanges(["owner": .null, "previousOwner": .string(userID)]),
                        time: now
                    )
                )
            }
        }
    }
}
