/// The IM group methods (Tencent Cloud IM's group management): joining, applications, quitting, dismissal,
/// profiles, receive options, attributes, member lists, roles, mutes, ownership transfer and messages.
extension GroupMethods {
    /// `group.types`: the policy table, one entry a type.
    public enum Types: RPCMethod {
        public typealias Params = NoParams
        public struct Result: Codable, Hashable, Sendable {
            public var types: [GroupTypeRules]
            public init(types: [GroupTypeRules]) { self.types = types }
        }
        public static let name = "group.types"
    }

    /// `group.join`: joins at once (`addOpt` ANY), becomes a pending application (AUTH), or is refused.
    public enum Join: RPCMethod {
        public struct Params: Codable, Hashable, Sendable {
            public var groupID: String
            public var message: String?
            public init(groupID: String, message: String? = nil) {
                self.groupID = groupID
                self.message = message
            }
        }
        public struct Result: Codable, Hashable, Sendable {
            /// `JOINED` or `PENDING`.
            public var status: String
            /// For `PENDING`: the application.
            public var applicationID: Int64?
            public init(status: String, applicationID: Int64? = nil) {
                self.status = status
                self.applicationID = applicationID
            }
        }
        public static let name = "group.join"
    }

    /// `group.applications`: a page of at most 50 join applications, newest first, pending and handled.
    public enum Applications: RPCMethod {
        public struct Params: Codable, Hashable, Sendable {
            public var groupID: String
            public var nextSeq: Int64?
            public init(groupID: String, nextSeq: Int64? = nil) {
                self.groupID = groupID
                self.nextSeq = nextSeq
            }
        }
        public struct Result: Codable, Hashable, Sendable {
            public var applications: [GroupApplicationInfo]
            /// Pending applications of the group.
            public var unreadCount: Int
            /// 0 when this is the last page.
            public var nextSeq: Int64
            public init(applications: [GroupApplicationInfo], unreadCount: Int, nextSeq: Int64) {
                self.applications = applications
                self.unreadCount = unreadCount
                self.nextSeq = nextSeq
            }
        }
        public static let name = "group.applications"
    }

    /// Params handling one application.
    public struct ApplicationDecision: Codable, Hashable, Sendable {
        public var groupID: String
        public var applicationID: Int64
        public var message: String?
        public init(groupID: String, applicationID: Int64, message: String? = nil) {
            self.groupID = groupID
            self.applicationID = applicationID
            self.message = message
        }
    }

    /// `group.acceptApplication`: owner or admin; the applicant joins.
    public enum AcceptApplication: RPCMethod {
        public typealias Params = ApplicationDecision
        public typealias Result = Bool
        public static let name = "group.acceptApplication"
    }

    /// `group.refuseApplication`: owner or admin.
    public enum RefuseApplication: RPCMethod {
        public typealias Params = ApplicationDecision
        public typealias Result = Bool
        public static let name = "group.refuseApplication"
    }

    /// `group.quit`: the caller leaves.
    public enum Quit: RPCMethod {
        public typealias Params = GroupRef
        public typealias Result = Bool
        public static let name = "group.quit"
    }

    /// `group.dismiss`: the group ends; its id answers 10010 from then on (IM types).
    public enum Dismiss: RPCMethod {
        public typealias Params = GroupRef
        public typealias Result = Bool
        public static let name = "group.dismiss"
    }

    /// Params naming a user, or the caller when absent.
    public struct OptionalUser: Codable, Hashable, Sendable {
        public var userID: String?
        public init(userID: String? = nil) { self.userID = userID }
    }

    /// A list of group profiles.
    public struct ProfileList: Codable, Hashable, Sendable {
        public var groups: [GroupProfile]
        public init(groups: [GroupProfile]) { self.groups = groups }
    }

    /// `group.joinedList`: the caller's groups with their profiles, AVChatRoom groups excluded.
    public enum JoinedList: RPCMethod {
        public typealias Params = OptionalUser
        public typealias Result = ProfileList
        public static let name = "group.joinedList"
        public static var isExpensive: Bool { true }
        public static var adminOnlyParameters: [String] { ["userID"] }
    }

    /// `group.getInfo`: profiles of several groups at once.
    public enum GetInfo: RPCMethod {
        public struct Params: Codable, Hashable, Sendable {
            public var groupIDs: [String]
            public init(groupIDs: [String]) { self.groupIDs = groupIDs }
        }
        public struct Result: Codable, Hashable, Sendable {
            public var groups: [GroupProfile]
            public var notFound: [String]
            public var dismissed: [String]
            public init(groups: [GroupProfile], notFound: [String], dismissed: [String]) {
                self.groups = groups
                self.notFound = notFound
                self.dismissed = dismissed
            }
        }
        public static let name = "group.getInfo"
    }

    /// `group.setInfo`: changes the profile; absent fields stay as they are.
    public enum SetInfo: RPCMethod {
        public struct Params: Codable, Hashable, Sendable {
            public var groupID: String
            public var name: String?
            public var introduction: String?
            public var notification: String?
            public var faceURL: String?
            public var addOpt: AddOption?
            public var allMuted: Bool?
            public var custom: [String: String]?
            public init(
                groupID: String,
                name: String? = nil,
                introduction: String? = nil,
                notification: String? = nil,
                faceURL: String? = nil,
                addOpt: AddOption? = nil,
                allMuted: Bool? = nil,
                custom: [String: String]? = nil
            ) {
                self.groupID = groupID
                self.name = name
                self.introduction = introduction
                self.notification = notification
                self.faceURL = faceURL
                self.addOpt = addOpt
                self.allMuted = allMuted
                self.custom = custom
            }
        }
        public typealias Result = GroupProfile
        public static let name = "group.setInfo"
    }

    /// `group.setReceiveOption`: the caller's message receive option in a group.
    public enum SetReceiveOption: RPCMethod {
        public struct Params: Codable, Hashable, Sendable {
            public var groupID: String
            /// `RECEIVE`, `NOT_RECEIVE` or `RECEIVE_NOT_NOTIFY`.
            public var option: ReceiveOption
            public init(groupID: String, option: ReceiveOption) {
                self.groupID = groupID
                self.option = option
            }
        }
        public typealias Result = Bool
        public static let name = "group.setReceiveOption"
    }

    /// A group's attributes and their version.
    public struct AttributesResult: Codable, Hashable, Sendable {
        public var attributes: [String: String]
        /// Name it as `version` in a write to fail (10056) if another writer came first.
        public var version: Int64
        public init(attributes: [String: String], version: Int64) {
            self.attributes = attributes
            self.version = version
        }
    }

    /// Params writing attributes.
    public struct AttributesWrite: Codable, Hashable, Sendable {
        public var groupID: String
        public var attributes: [String: String]
        public var version: Int64?
        public init(groupID: String, attributes: [String: String], version: Int64? = nil) {
            self.groupID = groupID
            self.attributes = attributes
            self.version = version
        }
    }

    /// `group.initAttributes`: replaces every attribute.
    public enum InitAttributes: RPCMethod {
        public typealias Params = AttributesWrite
        public typealias Result = AttributesResult
        public static let name = "group.initAttributes"
    }

    /// `group.setAttributes`: adds or changes attributes.
    public enum SetAttributes: RPCMethod {
        public typealias Params = AttributesWrite
        public typealias Result = AttributesResult
        public static let name = "group.setAttributes"
    }

    /// `group.deleteAttributes`: removes keys; `keys` null or absent removes all.
    public enum DeleteAttributes: RPCMethod {
        public struct Params: Codable, Hashable, Sendable {
            public var groupID: String
            public var keys: [String]?
            public var version: Int64?
            public init(groupID: String, keys: [String]?, version: Int64? = nil) {
                self.groupID = groupID
                self.keys = keys
                self.version = version
            }
        }
        public typealias Result = AttributesResult
        public static let name = "group.deleteAttributes"
    }

    /// `group.getAttributes`: all attributes, or the named keys.
    public enum GetAttributes: RPCMethod {
        public struct Params: Codable, Hashable, Sendable {
            public var groupID: String
            public var keys: [String]?
            public init(groupID: String, keys: [String]? = nil) {
                self.groupID = groupID
                self.keys = keys
            }
        }
        public typealias Result = AttributesResult
        public static let name = "group.getAttributes"
    }

    /// `group.memberList`: at most 50 members a page; pass `nextSeq` back until it is 0.
    public enum MemberList: RPCMethod {
        public struct Params: Codable, Hashable, Sendable {
            public var groupID: String
            /// `ALL` (default), `OWNER`, `ADMIN` or `COMMON`.
            public var filter: MemberFilter?
            public var nextSeq: Int64?
            /// Members per page, 1 to 50 (default 50).
            public var limit: Int?
            public init(groupID: String, filter: MemberFilter? = nil, nextSeq: Int64? = nil, limit: Int? = nil) {
                self.groupID = groupID
                self.filter = filter
                self.nextSeq = nextSeq
                self.limit = limit
            }
        }
        public struct Result: Codable, Hashable, Sendable {
            public var members: [GroupMemberDetail]
            public var nextSeq: Int64
            public init(members: [GroupMemberDetail], nextSeq: Int64) {
                self.members = members
                self.nextSeq = nextSeq
            }
        }
        public static let name = "group.memberList"
    }

    /// A list of member details.
    public struct MemberDetails: Codable, Hashable, Sendable {
        public var members: [GroupMemberDetail]
        public init(members: [GroupMemberDetail]) { self.members = members }
    }

    /// `group.membersInfo`: details of the named members.
    public enum MembersInfo: RPCMethod {
        public typealias Params = MembersChange
        public typealias Result = MemberDetails
        public static let name = "group.membersInfo"
    }

    /// `group.setMemberInfo`: name card, role, mute and custom fields of one member.
    public enum SetMemberInfo: RPCMethod {
        public struct Params: Codable, Hashable, Sendable {
            public var groupID: String
            public var userID: String
            public var nameCard: String?
            /// `admin` or `member`.
            public var role: Role?
            /// Muted until (ms since the Unix epoch); 0 unmutes.
            public var muteUntil: Int64?
            public var custom: [String: String]?
            public init(
                groupID: String,
                userID: String,
                nameCard: String? = nil,
                role: Role? = nil,
                muteUntil: Int64? = nil,
                custom: [String: String]? = nil
            ) {
                self.groupID = groupID
                self.userID = userID
                self.nameCard = nameCard
                self.role = role
                self.muteUntil = muteUntil
                self.custom = custom
            }
        }
        public typealias Result = Bool
        public static let name = "group.setMemberInfo"
    }

    /// `group.muteMember`: mutes a member for `seconds` (0 unmutes).
    public enum MuteMember: RPCMethod {
        public struct Params: Codable, Hashable, Sendable {
            public var groupID: String
            public var userID: String
            public var seconds: Int64
            public init(groupID: String, userID: String, seconds: Int64) {
                self.groupID = groupID
                self.userID = userID
                self.seconds = seconds
            }
        }
        public struct Result: Codable, Hashable, Sendable {
            /// ms since the Unix epoch; 0 when unmuted.
            public var muteUntil: Int64
            public init(muteUntil: Int64) { self.muteUntil = muteUntil }
        }
        public static let name = "group.muteMember"
    }

    /// `group.setMemberRole`: owner only; `admin` or `member`.
    public enum SetMemberRole: RPCMethod {
        public struct Params: Codable, Hashable, Sendable {
            public var groupID: String
            public var userID: String
            public var role: Role
            public init(groupID: String, userID: String, role: Role) {
                self.groupID = groupID
                self.userID = userID
                self.role = role
            }
        }
        public typealias Result = Bool
        public static let name = "group.setMemberRole"
    }

    /// `group.transferOwner`: owner only; the new owner must be a member (IM types).
    public enum TransferOwner: RPCMethod {
        public typealias Params = ChangeOwner.Params
        public typealias Result = GroupInfo
        public static let name = "group.transferOwner"
    }
}
