/// Who, by role, may do something in a group. `appAdmin` is Kii's app admin / Tencent's server API: a peer
/// with admin rights (root or `--admin-uid`).
public struct Actors: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    public static let owner = Actors(rawValue: 1 << 0)
    public static let admin = Actors(rawValue: 1 << 1)
    public static let member = Actors(rawValue: 1 << 2)
    public static let appAdmin = Actors(rawValue: 1 << 3)

    public static let nobody: Actors = []
    public static let ownerOrAppAdmin: Actors = [.owner, .appAdmin]
    public static let managers: Actors = [.owner, .admin, .appAdmin]
    public static let anyMember: Actors = [.owner, .admin, .member, .appAdmin]
}

/// The rules of one group type. Every decision about who may do what in a group is read from
/// ``GroupPolicy/table``; no rule lives anywhere else.
public struct GroupPolicy: Sendable, Hashable {
    /// Roles a member may have.
    public var roles: Set<GroupRole>
    /// Who may add members (Kii's add, Tencent's invite).
    public var add: Actors
    /// What adding an existing member gives: `.succ` (Kii: no change, success) or `.invalid` (Tencent).
    public var addExisting: MemberResult
    /// Who may remove (kick) other members.
    public var kick: Actors
    /// Whether admins may remove only ordinary members (never the owner or other admins).
    public var adminsKickOnlyMembers: Bool
    /// Whether a member may remove themself (quit).
    public var memberMayLeave: Bool
    /// Whether the owner may leave (the group would be ownerless); otherwise transfer first.
    public var ownerMayLeave: Bool
    /// Who may change the profile (name, ...).
    public var editProfile: Actors
    /// Who may delete (dismiss) the group.
    public var dismiss: Actors
    /// Who may change the owner.
    public var changeOwner: Actors
    /// Whether the new owner must already be a member (Tencent) or becomes one (Kii).
    public var newOwnerMustBeMember: Bool
    /// The most members, nil for unlimited.
    public var memberLimit: Int?
    /// Whether member changes raise events for the other members.
    public var memberEvents: Bool

    /// The policy of each type.
    public static let table: [GroupType: GroupPolicy] = [
        //            roles                        add           addExisting kick             adminsKickOnlyMembers leave  ownerLeave edit          dismiss          changeOwner       mustBeMember limit  events
        .basic: .init(
            [.owner, .member],
            .ownerOrAppAdmin,
            .succ,
            .ownerOrAppAdmin,
            false,
            true,
            false,
            .ownerOrAppAdmin,
            .ownerOrAppAdmin,
            .ownerOrAppAdmin,
            false,
            nil,
            true
        )
    ]

    /// The policy of a type.
    public static func of(_ type: GroupType) -> GroupPolicy? { Self.table[type] }

    /// Whether `actors` (the caller's standing in the group) includes one allowed by `rule`.
    public static func allows(_ rule: Actors, _ actors: Actors) -> Bool { !rule.isDisjoint(with: actors) }

    private init(
        _ roles: Set<GroupRole>,
        _ add: Actors,
        _ addExisting: MemberResult,
        _ kick: Actors,
        _ adminsKickOnlyMembers: Bool,
        _ memberMayLeave: Bool,
        _ ownerMayLeave: Bool,
        _ editProfile: Actors,
        _ dismiss: Actors,
        _ changeOwner: Actors,
        _ newOwnerMustBeMember: Bool,
        _ memberLimit: Int?,
        _ memberEvents: Bool
    ) {
        self.roles = roles
        self.add = add
        self.addExisting = addExisting
        self.kick = kick
        self.adminsKickOnlyMembers = adminsKickOnlyMembers
        self.memberMayLeave = memberMayLeave
        self.ownerMayLeave = ownerMayLeave
        self.editProfile = editProfile
        self.dismiss = dismiss
        self.changeOwner = changeOwner
        self.newOwnerMustBeMember = newOwnerMustBeMember
        self.memberLimit = memberLimit
        self.memberEvents = memberEvents
    }
}
