import Foundation
import GuildProtocol

/// Group rules for every type, read from ``GroupPolicy/table``: creation, profile, membership, ownership,
/// deletion, and the events each change appends in its own transaction.
public struct GroupService: Sendable {
    /// Where groups live.
    public var repository: any GroupRepository
    /// The current time in ms since the Unix epoch.
    public var now: @Sendable () -> Int64

    /// Creates the service.
    public init(repository: any GroupRepository, now: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970 * 1000) }) {
        self.repository = repository
        self.now = now
    }

    /// The largest page of members.
    public static let maximumPage = 200

    // MARK: - Reads

    /// A group; any caller with a session (or an admin) may read any group (Kii).
    public func get(caller: Caller, groupID: String) async throws -> Group {
        try Self.requireReader(caller)
        guard let group = try await self.repository.group(id: groupID) else { throw Self.notFound(groupID) }
        return group
    }

    /// A page of members in join order.
    public func members(
        caller: Caller,
        groupID: String,
        cursor: Int64,
        limit: Int
    ) async throws
        -> (members: [Membership], next: Int64)
    {
        try Self.requireReader(caller)
        let size = max(1, min(limit, Self.maximumPage))
        guard let page = try await self.repository.members(groupID: groupID, after: cursor, limit: size + 1) else {
            throw Self.notFound(groupID)
        }
        if page.members.count > size {
            return (Array(page.members.prefix(size)), page.cursors[size - 1])
        }
        return (page.members, 0)
    }

    /// The groups a user is a member of; the caller's own when `userID` is nil.
    public func memberOf(caller: Caller, userID: String?) async throws -> [Group] {
        try await self.repository.groups(memberOf: try self.listTarget(caller, userID))
    }

    /// ``memberOf(caller:userID:)`` or ``ownerOf(caller:userID:)`` as the wire's JSON array, built by the store.
    public func groupListJSON(caller: Caller, userID: String?, ownedOnly: Bool) async throws -> [UInt8] {
        try await self.repository.groupListJSON(userID: try self.listTarget(caller, userID), ownedOnly: ownedOnly)
    }

    /// The groups a user owns; always a subset of ``memberOf(caller:userID:)``.
    public func ownerOf(caller: Caller, userID: String?) async throws -> [Group] {
        try await self.repository.groups(ownedBy: try self.listTarget(caller, userID))
    }

    // MARK: - Changes

    /// Creates a group owned by the caller (or, for an admin, by `ownerID`, or by nobody). Unknown initial
    /// members do not fail the call; they come back as not found.
    public func create(
        caller: Caller,
        name: String,
        groupID: String?,
        type: GroupType,
        memberIDs: [String],
        ownerID: String? = nil
    ) async throws -> (group: Group, notFound: [String]) {
        try GroupRules.validateName(name)
        if let groupID { try GroupRules.validateGroupID(groupID) }
        guard let policy = GroupPolicy.of(type) else {
            throw GuildError(.unsupported, "group type \(type.rawValue) is not available yet", field: "type")
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
        let id = groupID ?? Self.newGroupID()
        let now = self.now()
        let actor = caller.session?.user.id
        let byAdmin = caller.session == nil
        let result = try await self.repository.groupTransaction { tx in
            if let owner, try !tx.userExists(owner) {
                throw GuildError(.userNotFound, "no user with id \(owner)", field: "owner")
            }
            try tx.insertGroup(id: id, name: name, type: type, now: now)
            var added: [String] = []
            var notFound: [String] = []
            if let owner {
                try tx.insertMember(groupID: id, userID: owner, role: .owner, now: now)
                added.append(owner)
            }
            for member in Self.unique(memberIDs) where member != owner {
                guard try tx.userExists(member) else {
                    notFound.append(member)
                    continue
                }
                if let limit = policy.memberLimit, added.count >= limit { break }
                try tx.insertMember(groupID: id, userID: member, role: .member, now: now)
                added.append(member)
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
            guard let group = try tx.group(id) else { throw Self.notFound(id) }
            return (group, notFound)
        }
        return result
    }

    /// Renames a group (who may: the policy's `editProfile`).
    public func rename(caller: Caller, groupID: String, name: String) async throws -> Group {
        try GroupRules.validateName(name)
        let now = self.now()
        return try await self.repository.groupTransaction { tx in
            let (group, _, policy, standing) = try self.load(tx, caller, groupID)
            guard GroupPolicy.allows(policy.editProfile, standing) else {
                throw Self.denied("rename the group")
            }
            try tx.renameGroup(id: groupID, name: name, now: now)
            try tx.append(
                GroupEvent(
                    kind: .groupInfoChanged,
                    groupID: groupID,
                    actor: caller.session?.user.id,
                    byAdmin: Self.actsAsAdmin(standing),
                    changes: ["name": .string(name)],
                    time: now
                )
            )
            var renamed = group
            renamed.name = name
            renamed.modifiedAt = now
            return renamed
        }
    }

    /// Deletes (dismisses) a group; its members get `groupDismissed`.
    public func delete(caller: Caller, groupID: String) async throws {
        let now = self.now()
        try await self.repository.groupTransaction { tx in
            let (_, _, policy, standing) = try self.load(tx, caller, groupID)
            guard GroupPolicy.allows(policy.dismiss, standing) else { throw Self.denied("delete the group") }
            let members = try tx.memberIDs(groupID: groupID)
            try tx.append(
                GroupEvent(
                    kind: .groupDismissed,
                    groupID: groupID,
                    actor: caller.session?.user.id,
                    byAdmin: Self.actsAsAdmin(standing),
                    time: now,
                    left: members
                )
            )
            try tx.deleteGroup(id: groupID)
        }
    }

    /// Adds members. Per user: `SUCC`, `INVALID` or `SUCC` for an existing member (per the policy),
    /// `FAIL` with `USER_NOT_FOUND`.
    public func addMembers(caller: Caller, groupID: String, userIDs: [String]) async throws -> [MemberOutcome] {
        let now = self.now()
        return try await self.repository.groupTransaction { tx in
            let (group, _, policy, standing) = try self.load(tx, caller, groupID)
            guard GroupPolicy.allows(policy.add, standing) else { throw Self.denied("add members") }
            var outcomes: [MemberOutcome] = []
            var added: [String] = []
            var count = group.memberCount
            for userID in Self.unique(userIDs) {
                if try tx.membership(groupID: groupID, userID: userID) != nil {
                    outcomes.append(MemberOutcome(userID: userID, result: policy.addExisting))
                } else if try !tx.userExists(userID) {
                    outcomes.append(MemberOutcome(userID: userID, result: .fail, reason: "USER_NOT_FOUND"))
                } else if let limit = policy.memberLimit, count >= limit {
                    outcomes.append(MemberOutcome(userID: userID, result: .fail, reason: "GROUP_FULL"))
                } else {
                    try tx.insertMember(groupID: groupID, userID: userID, role: .member, now: now)
                    outcomes.append(MemberOutcome(userID: userID, result: .succ))
                    added.append(userID)
                    count += 1
                }
            }
            if !added.isEmpty {
                try tx.append(
                    GroupEvent(
                        kind: .memberInvited,
                        groupID: groupID,
                        actor: caller.session?.user.id,
                        byAdmin: Self.actsAsAdmin(standing),
                        users: added,
                        time: now,
                        joined: added
                    )
                )
            }
            return outcomes
        }
    }

    /// Removes members. A member may remove themself (`memberLeave` to the others, `quitFromGroup` to them);
    /// removing others (`memberKicked`) needs the policy's `kick`. The owner cannot be removed where the
    /// policy forbids it: transfer ownership first.
    public func removeMembers(caller: Caller, groupID: String, userIDs: [String]) async throws -> [MemberOutcome] {
        let now = self.now()
        return try await self.repository.groupTransaction { tx in
            let (_, callerMembership, policy, standing) = try self.load(tx, caller, groupID)
            var outcomes: [MemberOutcome] = []
            var kicked: [String] = []
            for userID in Self.unique(userIDs) {
                guard let target = try tx.membership(groupID: groupID, userID: userID) else {
                    outcomes.append(MemberOutcome(userID: userID, result: .fail, reason: "NOT_A_MEMBER"))
                    continue
                }
                let isSelf = callerMembership?.userID == userID
                if target.role == .owner && !policy.ownerMayLeave {
                    outcomes.append(MemberOutcome(userID: userID, result: .fail, reason: "OWNER_CANNOT_LEAVE"))
                    continue
                }
                if isSelf {
                    guard policy.memberMayLeave || target.role == .owner else {
                        outcomes.append(MemberOutcome(userID: userID, result: .fail, reason: "PERMISSION_DENIED"))
                        continue
                    }
                    try tx.deleteMember(groupID: groupID, userID: userID)
                    try tx.append(
                        GroupEvent(kind: .memberLeave, groupID: groupID, actor: userID, users: [userID], time: now, left: [userID])
                    )
                    try tx.append(
                        GroupEvent(kind: .quitFromGroup, groupID: groupID, actor: userID, users: [userID], audience: .named, time: now)
                    )
                    outcomes.append(MemberOutcome(userID: userID, result: .succ))
                    continue
                }
                var allowed = GroupPolicy.allows(policy.kick, standing)
                if allowed, policy.adminsKickOnlyMembers, standing.isDisjoint(with: [.owner, .appAdmin]), target.role != .member {
                    allowed = false
                }
                guard allowed else {
                    outcomes.append(MemberOutcome(userID: userID, result: .fail, reason: "PERMISSION_DENIED"))
                    continue
                }
                try tx.deleteMember(groupID: groupID, userID: userID)
                kicked.append(userID)
                outcomes.append(MemberOutcome(userID: userID, result: .succ))
            }
            if !kicked.isEmpty {
                try tx.append(
                    GroupEvent(
                        kind: .memberKicked,
                        groupID: groupID,
                        actor: caller.session?.user.id,
                        byAdmin: Self.actsAsAdmin(standing),
                        users: kicked,
                        time: now,
                        left: kicked
                    )
                )
            }
            return outcomes
        }
    }

    /// Makes `userID` the owner (who may: the policy's `changeOwner`; an ownerless group only by an admin).
    /// Basic: a non-member becomes a member; the old owner stays a member.
    public func changeOwner(caller: Caller, groupID: String, userID: String) async throws -> Group {
        let now = self.now()
        return try await self.repository.groupTransaction { tx in
            let (group, _, policy, standing) = try self.load(tx, caller, groupID)
            guard GroupPolicy.allows(policy.changeOwner, standing) else { throw Self.denied("change the owner") }
            guard try tx.userExists(userID) else {
                throw GuildError(.userNotFound, "no user with id \(userID)", field: "userID")
            }
            let target = try tx.membership(groupID: groupID, userID: userID)
            if target?.role == .owner { return group }
            if target == nil && policy.newOwnerMustBeMember {
                throw GuildError(.invalidInput, "the new owner must be a member of the group", field: "userID")
            }
            if let old = group.ownerID { try tx.setRole(groupID: groupID, userID: old, role: .member) }
            var joined: [String] = []
            if target == nil {
                try tx.insertMember(groupID: groupID, userID: userID, role: .owner, now: now)
                joined = [userID]
                try tx.append(
                    GroupEvent(
                        kind: .memberEnter,
                        groupID: groupID,
                        actor: caller.session?.user.id,
                        byAdmin: Self.actsAsAdmin(standing),
                        users: [userID],
                        time: now,
                        joined: joined
                    )
                )
            } else {
                try tx.setRole(groupID: groupID, userID: userID, role: .owner)
            }
            try tx.touchGroup(id: groupID, now: now)
            try tx.append(
                GroupEvent(
                    kind: .groupInfoChanged,
                    groupID: groupID,
                    actor: caller.session?.user.id,
                    byAdmin: Self.actsAsAdmin(standing),
                    users: [userID],
                    changes: ["owner": .string(userID), "previousOwner": group.ownerID.map { .string($0) } ?? .null],
                    time: now
                )
            )
            guard let changed = try tx.group(groupID) else { throw Self.notFound(groupID) }
            return changed
        }
    }

    /// What deleting a user does to groups, inside the deletion's transaction: their memberships end
    /// (`memberLeave` with reason `userDeleted`), and groups they owned become ownerless (Kii).
    public static func removeDeletedUser(_ userID: String, in tx: any GroupTransaction, now: Int64) throws {
        for membership in try tx.memberships(userID: userID) {
            try tx.deleteMember(groupID: membership.groupID, userID: userID)
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
                try tx.touchGroup(id: membership.groupID, now: now)
                try tx.append(
                    GroupEvent(
                        kind: .groupInfoChanged,
                        groupID: membership.groupID,
                        actor: nil,
                        changes: ["owner": .null, "previousOwner": .string(userID)],
                        time: now
                    )
                )
            }
        }
    }

    // MARK: - Helpers

    private func load(
        _ tx: any GroupTransaction,
        _ caller: Caller,
        _ groupID: String
    ) throws
        -> (Group, Membership?, GroupPolicy, Actors)
    {
        try Self.requireReader(caller)
        guard let group = try tx.group(groupID) else { throw Self.notFound(groupID) }
        guard let policy = GroupPolicy.of(group.type) else {
            throw GuildError(.unsupported, "group type \(group.type.rawValue) is not available yet")
        }
        let membership = try caller.session.flatMap { try tx.membership(groupID: groupID, userID: $0.user.id) }
        return (group, membership, policy, GroupRules.standing(of: caller, in: membership))
    }

    private func listTarget(_ caller: Caller, _ userID: String?) throws -> String {
        try Self.requireReader(caller)
        if let userID { return userID }
        return try caller.requireUserID()
    }

    private static func requireReader(_ caller: Caller) throws {
        guard caller.session != nil || caller.isAdmin else {
            throw GuildError(.unauthorized, "this call needs a session")
        }
    }

    /// Whether the caller acted with admin rights only (no role in the group).
    private static func actsAsAdmin(_ standing: Actors) -> Bool {
        standing.contains(.appAdmin) && standing.isDisjoint(with: [.owner, .admin, .member])
    }

    private static func notFound(_ groupID: String) -> GuildError {
        GuildError(.groupNotFound, "no group with id \(groupID)", field: "groupID")
    }

    private static func denied(_ what: String) -> GuildError {
        GuildError(.permissionDenied, "the caller may not \(what) in this group")
    }

    private static func unique(_ ids: [String]) -> [String] {
        var seen = Set<String>()
        return ids.filter { seen.insert($0).inserted }
    }

    private static func newGroupID() -> String {
        "g" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(24)
    }
}
