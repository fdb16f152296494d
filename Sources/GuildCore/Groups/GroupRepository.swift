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
    /// The type of a dismissed IM group, nil when the id was never dismissed.
    func dismissedType(_ id: String) throws -> GroupType?
    /// Records a dismissed IM group (its id is never reused).
    func insertTombstone(id: String, type: GroupType, now: Int64) throws
    /// Writes the profile fields of `group` (name, introduction, notification, faceURL, addOption, allMuted,
    /// custom) and its modification time.
    func saveProfile(_ group: Group) throws
    /// How many groups a user is a member of.
    func membershipCount(userID: String) throws -> Int
    /// The owner and admins of a group.
    func managerIDs(groupID: String) throws -> [String]
    /// The longest-standing member other than `excluding`.
    func longestStandingMember(groupID: String, excluding: String) throws -> String?
    /// A page of members with their IM details, in join order after `cursor`, only those with `roles`.
    func memberInfos(groupID: String, roles: Set<GroupRole>, after cursor: Int64, limit: Int) throws -> [(cursor: Int64, info: MemberInfo)]
    /// The IM details of the named users who are members.
    func memberInfos(groupID: String, userIDs: [String]) throws -> [MemberInfo]
    /// Changes a member's name card, custom fields or receive option (nil leaves one as it is).
    func updateMember(groupID: String, userID: String, nameCard: String?, custom: [String: String]?, receiveOption: ReceiveOption?) throws
    /// The members whose receive option is `NOT_RECEIVE` (they get no copy of the group's messages).
    func membersNotReceiving(groupID: String) throws -> [String]
    /// Until when a user is muted in a group (0 when not); survives leaving and re-joining.
    func muteUntil(groupID: String, userID: String) throws -> Int64
    /// Mutes a user until a time; 0 unmutes.
    func setMute(groupID: String, userID: String, until: Int64) throws
    /// Records a join application; returns it.
    func insertApplication(groupID: String, fromUser: String, message: String, now: Int64) throws -> JoinApplication
    /// An application by id.
    func application(id: Int64) throws -> JoinApplication?
    /// A user's pending application to a group.
    func pendingApplication(groupID: String, fromUser: String) throws -> JoinApplication?
    /// Marks an application accepted or refused.
    func handleApplication(id: Int64, status: JoinApplication.Status, by handler: String?, message: String, now: Int64) throws
    /// A page of a group's applications (newest first, before `cursor`, 0 for the first page), and how many are pending.
    func applications(groupID: String, before cursor: Int64, limit: Int) throws -> (applications: [JoinApplication], pending: Int)
    /// A group's attributes.
    func attributes(groupID: String) throws -> GroupAttributes
    /// Replaces a group's attributes; returns the new version.
    func saveAttributes(groupID: String, values: [String: String]) throws -> Int64
    /// Takes the group's next message sequence number (1, 2, ...).
    func nextMessageSeq(groupID: String) throws -> Int64
    /// Appends an event to the log; returns its sequence number.
    @discardableResult
    func append(_ event: GroupEvent) throws -> Int64
}

/// Durable storage of groups, memberships and the event log.
public protocol GroupRepository: Sendable {
    /// Runs `body` in a savepoint of a durable transaction (group commit); returns once committed.
    /// Events appended in it are delivered to subscribers after the commit.
    func groupTransaction<T: Sendable>(_ body: @escaping @Sendable (any GroupTransaction) throws -> T) async throws -> T
    /// Runs `body` on a read-only snapshot (writes through it fail).
    func groupRead<T: Sendable>(_ body: @escaping @Sendable (any GroupTransaction) throws -> T) async throws -> T
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
