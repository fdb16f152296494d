/// The IM groups area's records and queries (Tencent Cloud IM): member details, mutes, join applications,
/// attributes, message numbers and dismissed ids, handed out as ``Transaction/imGroups``.
public protocol IMGroupRecords {
    /// The type of a dismissed IM group, nil when the id was never dismissed.
    func dismissedType(_ id: String) throws -> GroupType?
    /// Records a dismissed IM group (its id is never reused).
    func insertTombstone(id: String, type: GroupType, now: Int64) throws
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
}
