/// Who, by standing in a group, may do something. `appAdmin` is Kii's app admin / Tencent's server API: a
/// peer with admin rights (root or `--admin-uid`). `outsider` is a caller with a session who is not a member.
public struct Actors: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    public static let owner = Actors(rawValue: 1 << 0)
    public static let admin = Actors(rawValue: 1 << 1)
    public static let member = Actors(rawValue: 1 << 2)
    public static let appAdmin = Actors(rawValue: 1 << 3)
    public static let outsider = Actors(rawValue: 1 << 4)

    public static let nobody: Actors = []
    public static let ownerOrAppAdmin: Actors = [.owner, .appAdmin]
    public static let managers: Actors = [.owner, .admin, .appAdmin]
    public static let anyMember: Actors = [.owner, .admin, .member, .appAdmin]
    public static let anyone: Actors = [.owner, .admin, .member, .appAdmin, .outsider]

    /// The names of the standings in this set, as `group.types` shows them.
    public var names: [String] {
        [(Actors.owner, "owner"), (.admin, "admin"), (.member, "member"), (.outsider, "nonMember"), (.appAdmin, "appAdmin")]
            .filter { self.contains($0.0) }.map(\.1)
    }
}

/// How a non-member gets into a group of a type.
public enum JoinRule: String, Sendable, Hashable {
    /// Only by being added (Kii's Basic, Tencent's Work): `group.join` is refused.
    case addedOnly
    /// `group.join` follows the group's ``AddOption``: refused, an application, or at once.
    case byAddOption
}

/// Tencent's group join option (`V2TIMGroupAddOpt`): FORBID=0, AUTH=1, ANY=2.
public enum AddOption: String, Sendable, Hashable, CaseIterable, Codable {
    case forbid = "FORBID"
    case auth = "AUTH"
    case any = "ANY"
}

/// The rules of one group type. Every decision about who may do what in a group is read from the table
/// below; no rule lives anywhere else.
public struct GroupPolicy: Sendable, Hashable {
    /// One rule's value for every type: a line of the table.
    struct Line<Value: Sendable & Hashable>: Sendable, Hashable {
        var basic, work, `public`, meeting, avChatRoom, community: Value
        subscript(type: GroupType) -> Value {
            switch type {
            case .basic: self.basic
            case .work: self.work
            case .public: self.public
            case .meeting: self.meeting
            case .avChatRoom: self.avChatRoom
            case .community: self.community
            }
        }
    }

    /// The table (protocol/users-and-groups.md for Basic; protocol/im-groups.md for the IM types, with what
    /// Guild chose where the sources disagree). One line a rule, one column a type. Who-may values: `nobody`,
    /// `appAdmin` (Tencent's server API / Kii's app admin only), `ownerOrAppAdmin`, `managers` (owner, admins,
    /// app admin), `anyMember` (every member, app admin), `anyone` (with a session, members or not).
    // swift-format-ignore
    enum Rules {
        //                        Basic              Work               Public             Meeting            AVChatRoom         Community
        static let roles       = Line<Set<GroupRole>>(
                                  basic: [.owner, .member], work: [.owner, .member], public: [.owner, .admin, .member],
                                  meeting: [.owner, .admin, .member], avChatRoom: [.owner, .member], community: [.owner, .admin, .member])
        static let kiiRules    = Line(basic: true,        work: false,       public: false,     meeting: false,    avChatRoom: false, community: false)
        static let join        = Line(basic: JoinRule.addedOnly, work: .addedOnly, public: .byAddOption, meeting: .byAddOption, avChatRoom: .byAddOption, community: .byAddOption)
        static let addOption   = Line(basic: AddOption.forbid, work: .forbid, public: .auth,      meeting: .any,     avChatRoom: .any,  community: .any)
        static let invite      = Line(basic: Actors.ownerOrAppAdmin, work: .anyMember, public: .appAdmin, meeting: .appAdmin, avChatRoom: .nobody, community: .appAdmin)
        static let ownerQuits  = Line(basic: false,       work: true,        public: false,     meeting: false,    avChatRoom: false, community: false)
        static let edit        = Line(basic: Actors.ownerOrAppAdmin, work: .anyMember, public: .managers, meeting: .managers, avChatRoom: .ownerOrAppAdmin, community: .managers)
        static let kick        = Line(basic: Actors.ownerOrAppAdmin, work: .ownerOrAppAdmin, public: .managers, meeting: .managers, avChatRoom: .nobody, community: .managers)
        static let mute        = Line(basic: Actors.nobody, work: .nobody,   public: .managers, meeting: .managers, avChatRoom: .ownerOrAppAdmin, community: .managers)
        static let dismiss     = Line(basic: Actors.ownerOrAppAdmin, work: .appAdmin, public: .ownerOrAppAdmin, meeting: .ownerOrAppAdmin, avChatRoom: .ownerOrAppAdmin, community: .ownerOrAppAdmin)
        static let transfer    = Line(basic: Actors.ownerOrAppAdmin, work: .ownerOrAppAdmin, public: .ownerOrAppAdmin, meeting: .ownerOrAppAdmin, avChatRoom: .nobody, community: .ownerOrAppAdmin)
        static let setRole     = Line(basic: Actors.nobody, work: .nobody,   public: .ownerOrAppAdmin, meeting: .ownerOrAppAdmin, avChatRoom: .nobody, community: .ownerOrAppAdmin)
        static let approve     = Line(basic: Actors.nobody, work: .nobody,   public: .managers, meeting: .managers, avChatRoom: .ownerOrAppAdmin, community: .managers)
        static let readMembers = Line(basic: Actors.anyone, work: .anyMember, public: .anyMember, meeting: .anyMember, avChatRoom: .anyMember, community: .anyMember)
        static let memberLimit = Line<Int?>(basic: nil,   work: 200,         public: 2_000,     meeting: 6_000,    avChatRoom: nil,   community: 100_000)
        static let unread      = Line(basic: false,       work: true,        public: true,      meeting: false,    avChatRoom: false, community: true)
        static let history     = Line(basic: false,       work: false,       public: false,     meeting: true,     avChatRoom: false, community: false)
        static let memberEvents = Line(basic: true,       work: true,        public: true,      meeting: false,    avChatRoom: true,  community: true)
        static let roleEvents  = Line(basic: true,        work: true,        public: true,      meeting: false,    avChatRoom: true,  community: true)
        static let muteEvents  = Line(basic: true,        work: true,        public: true,      meeting: false,    avChatRoom: false, community: true)
        static let quitEvent   = Line(basic: true,        work: true,        public: true,      meeting: true,     avChatRoom: false, community: true)
        static let joinedList  = Line(basic: true,        work: true,        public: true,      meeting: true,     avChatRoom: false, community: true)
        static let attributes  = Line(basic: false,       work: false,       public: false,     meeting: false,    avChatRoom: true,  community: false)
    }

    /// The type this policy is for.
    public var type: GroupType
    /// Roles a member may have.
    public var roles: Set<GroupRole>
    /// Kii's rules (Basic): Kii's error codes, an existing member re-added succeeds, a deleted group leaves no
    /// trace. Otherwise Tencent's: 10xxx codes, `INVALID` for an existing member, dismissed groups answer 10010.
    public var kiiRules: Bool
    /// How non-members get in.
    public var join: JoinRule
    /// The join option a new group starts with.
    public var defaultAddOption: AddOption
    /// Who may add (invite) members; Tencent's server API (`appAdmin`) may add where members may not.
    public var invite: Actors
    /// Whether the owner may quit (the longest-standing member then becomes owner).
    public var ownerMayQuit: Bool
    /// Who may change the profile (name, introduction, notification, face, join option, custom fields).
    public var editProfile: Actors
    /// Who may remove others; admins only ordinary members; nobody can remove the owner.
    public var kick: Actors
    /// Who may mute members (and the whole group); admins only ordinary members; never the owner.
    public var mute: Actors
    /// Who may dismiss (delete) the group.
    public var dismiss: Actors
    /// Who may hand ownership over.
    public var transfer: Actors
    /// Who may make members admins and back.
    public var setRole: Actors
    /// Who may accept or refuse join applications.
    public var approve: Actors
    /// Who may list members.
    public var readMembers: Actors
    /// The most members, nil for unlimited.
    public var memberLimit: Int?
    /// Whether unread counts apply (informational: Guild keeps no message counters yet).
    public var unreadCounts: Bool
    /// Whether new members see messages from before they joined.
    public var preJoinHistory: Bool
    /// Whether member changes (enter, leave, invited, kicked) go to members; otherwise only to app admins.
    public var memberEvents: Bool
    /// Whether admin grants and revocations go to members; otherwise only to app admins.
    public var roleEvents: Bool
    /// Whether mutes (`memberInfoChanged`) go to members; otherwise only to app admins.
    public var muteEvents: Bool
    /// Whether the quitter gets `quitFromGroup` (multi-device sync; not in AVChatRoom).
    public var quitEvent: Bool
    /// Whether `group.joinedList` lists groups of this type.
    public var inJoinedList: Bool
    /// Whether group attributes are available.
    public var attributes: Bool

    /// Invitees a non-admin caller may name in one call (Tencent: 20); app admins may name up to
    /// ``maximumAdminInvitees`` (the server API's 300).
    public static let maximumInvitees = 20
    /// Invitees an app admin may name in one call.
    public static let maximumAdminInvitees = 300

    /// The policy of every type.
    public static let table: [GroupType: GroupPolicy] = Dictionary(uniqueKeysWithValues: GroupType.allCases.map { ($0, GroupPolicy($0)) })

    /// The policy of a type.
    public static func of(_ type: GroupType) -> GroupPolicy { Self.table[type] ?? GroupPolicy(type) }

    /// Whether `actors` (the caller's standing in the group) includes one allowed by `rule`.
    public static func allows(_ rule: Actors, _ actors: Actors) -> Bool { !rule.isDisjoint(with: actors) }

    /// What adding an existing member gives: `SUCC` under Kii's rules, `INVALID` under Tencent's.
    public var addExisting: MemberResult { self.kiiRules ? .succ : .invalid }

    private init(_ type: GroupType) {
        self.type = type
        self.roles = Rules.roles[type]
        self.kiiRules = Rules.kiiRules[type]
        self.join = Rules.join[type]
        self.defaultAddOption = Rules.addOption[type]
        self.invite = Rules.invite[type]
        self.ownerMayQuit = Rules.ownerQuits[type]
        self.editProfile = Rules.edit[type]
        self.kick = Rules.kick[type]
        self.mute = Rules.mute[type]
        self.dismiss = Rules.dismiss[type]
        self.transfer = Rules.transfer[type]
        self.setRole = Rules.setRole[type]
        self.approve = Rules.approve[type]
        self.readMembers = Rules.readMembers[type]
        self.memberLimit = Rules.memberLimit[type]
        self.unreadCounts = Rules.unread[type]
        self.preJoinHistory = Rules.history[type]
        self.memberEvents = Rules.memberEvents[type]
        self.roleEvents = Rules.roleEvents[type]
        self.muteEvents = Rules.muteEvents[type]
        self.quitEvent = Rules.quitEvent[type]
        self.inJoinedList = Rules.joinedList[type]
        self.attributes = Rules.attributes[type]
    }
}
