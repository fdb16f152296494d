/// The operations a group rule needs inside one transaction. Everything done through it, and every event
/// appended to it, commits together or not at all.
public protocol GroupTransaction {
    /// A group by id.
    func group(_ id: String) throws -> Group?
    /// A user's membership of a group.
    func membership(groupID: String, userID: String) throws -> Membership?
    /// Whether a user exists.
    func userExists(_ id: String) throws -> Bool
    /// All members of a group (for events that concern every member).
    func memberIDs(groupID: String) throws -> [String]
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
    /// Renames a group.
    func renameGroup(id: String, name: String, now: Int64) throws
    /// Marks a group changed (owner change).
    func touchGroup(id: String, now: Int64) throws
    /// Deletes a group and its memberships.
    func deleteGroup(id: String) throws
    /// Appends an event to the log; returns its sequence number.
    @discardableResult
    func append(_ event: GroupEvent) throws -> Int64
}

/// Durable storage of groups, memberships and the event log.
public protocol GroupRepository: Sendable {
    /// Runs `body` in a savepoint of a durable transaction (group commit); returns once committed.
    /// Events appended in it are delivered to subscribers after the commit.
    func groupTransaction<T: Sendable>(_ body: @escaping @Sendable (any GroupTransaction) throws -> T) async throws -> T
    /// A group by id.
    func group(id: String) async throws -> Group?
    /// A page of members in join order, after the cursor (0 for the first page); nil when there is no such group.
    func members(groupID: String, after cursor: Int64, limit: Int) async throws -> (members: [Membership], cursors: [Int64])?
    /// The groups a user is a member of (owned ones included).
    func groups(memberOf userID: String) async throws -> [Group]
    /// The groups a user owns.
    func groups(ownedBy userID: String) async throws -> [Group]
    /// The groups a user is a member of (or owns, with `ownedOnly`), already as the wire's JSON array of
    /// group objects, built by the store in one pass: the fast path for long lists.
    func groupListJSON(userID: String, ownedOnly: Bool) async throws -> [UInt8]
    /// Checks the group invariants; returns a description of each violation.
    func checkInvariants() async throws -> [String]
}
