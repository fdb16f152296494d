/// The groups area's records and queries, handed out as ``Transaction/groups``: groups, memberships and
/// the Kii operations on them. Everything done through it commits with the rest of its transaction.
public protocol GroupRecords {
    /// A group by id.
    func group(_ id: String) throws -> Group?
    /// Whether group `id` exists, and its owner: nil when there is no such group (a cheap read for checks that
    /// need no more of the group).
    func groupOwnership(_ id: String) throws -> GroupOwnership?
    /// A user's membership of a group.
    func membership(groupID: String, userID: String) throws -> Membership?
    /// Group `id` and `userID`'s membership of it (nil when `userID` is nil or not a member); nil when there is
    /// no such group. What nearly every group operation reads first: an engine whose reads are round trips
    /// answers it with one wait (the default reads ``group(_:)``, then ``membership(groupID:userID:)``). In a write
    /// the membership must be read once the group's row is locked, not before: it is what the checks that follow
    /// rely on.
    func groupAndMembership(_ id: String, userID: String?) throws -> (group: Group, membership: Membership?)?
    /// Whether a user exists.
    func userExists(_ id: String) throws -> Bool
    /// `userID`'s membership of group `groupID`, and whether the user exists: what adding a member checks first.
    /// An engine whose reads are round trips answers it in one (the default reads
    /// ``membership(groupID:userID:)``, then, for a user who is not a member, ``userExists(_:)``).
    func invitee(groupID: String, userID: String) throws -> (membership: Membership?, exists: Bool)
    /// All members of a group (for events that concern every member).
    func memberIDs(groupID: String) throws -> [String]
    /// A page of members in join order after `cursor` (a ``Membership/joinSeq``; 0 for the first page).
    func memberPage(groupID: String, after cursor: Int64, limit: Int) throws -> [Membership]
    /// All memberships of a user.
    func memberships(userID: String) throws -> [Membership]
    /// Creates a group; throws `groupAlreadyExists` when the id is taken.
    func insertGroup(id: String, name: String, type: GroupType, now: Int64) throws
    /// Adds a member with a role.
    func insertMember(groupID: String, userID: String, role: GroupRole, now: Int64) throws
    /// Changes a member's role.
    func setRole(groupID: String, userID: String, role: GroupRole) throws
    /// Removes a member.
    func deleteMember(groupID: String, userID: String) throws
    /// Marks a group changed (owner change).
    func touchGroup(id: String, now: Int64) throws
    /// Deletes a group and its memberships.
    func deleteGroup(id: String) throws
    /// Writes the profile fields of `group` (name, introduction, notification, faceURL, addOption, allMuted,
    /// custom) and its modification time.
    func saveProfile(_ group: Group) throws
    /// The groups a user is a member of (owned ones included), in join order.
    func groups(memberOf userID: String) throws -> [Group]
    /// The groups a user owns, in join order.
    func groups(ownedBy userID: String) throws -> [Group]
    /// The ids of the groups a user is a member of (or owns, with `ownedOnly`), in join order: the index scan
    /// behind long group lists.
    func groupIDs(of userID: String, ownedOnly: Bool) throws -> [String]
    /// Checks the group invariants; returns a description of each violation.
    func groupInvariantViolations() throws -> [String]
}

extension GroupRecords {
    /// ``group(_:)``, then ``membership(groupID:userID:)``: what an engine whose reads are cheap calls does.
    public func groupAndMembership(_ id: String, userID: String?) throws -> (group: Group, membership: Membership?)? {
        guard let group = try self.group(id) else { return nil }
        return (group, try userID.flatMap { try self.membership(groupID: id, userID: $0) })
    }

    /// ``membership(groupID:userID:)``, then ``userExists(_:)`` for a user who is not a member.
    public func invitee(groupID: String, userID: String) throws -> (membership: Membership?, exists: Bool) {
        if let membership = try self.membership(groupID: groupID, userID: userID) { return (membership, true) }
        return (nil, try self.userExists(userID))
    }
}
