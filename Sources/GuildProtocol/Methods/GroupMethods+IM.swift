import GuildJSON

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

        public static let access: AccessRequirement = .anyone
        public static let contract = MethodContract(
            summary:
                "The policy table: for each group type, its roles, how one joins, who may invite, edit, kick, mute, dismiss, transfer, change roles, handle applications and list members, member limits, and which events members get.",
            tags: ["group", "im"],
            result: "types",
            JSONSchema.object(required: ["types"], ["types": JSONSchema.array(of: JSONSchema.ref("GroupTypeRules"))]),
            example: .init(result: ["types": []])
        )
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

        public static let access: AccessRequirement = .session
        public static let contract = MethodContract(
            summary:
                "Joins a group: at once (addOpt ANY: members get memberEnter), as a pending application (AUTH: the owner and admins get receiveJoinApplication), or refused (FORBID; Work and Basic groups are joined only by being added).",
            tags: ["group", "im"],
            params: [
                .init("groupID", JSONSchema.string, required: true),
                .init("message", JSONSchema.string, "For the approvers: at most 300 bytes"),
            ],
            result: "join",
            JSONSchema.object(required: ["status"], ["status": JSONSchema.oneOf(["JOINED", "PENDING"]), "applicationID": JSONSchema.integer]),
            errors: [
                ErrorReason.unauthorized, ErrorReason.groupNotFound, ErrorReason.groupDismissed, ErrorReason.alreadyMember, ErrorReason.groupFull,
                ErrorReason.notAllowed, ErrorReason.unsupportedForType,
            ],
            writes: true,
            example: .init(params: ["groupID": "@TGS#2C5SZEAEF", "message": "Hi!"], result: ["status": "PENDING", "applicationID": 7])
        )
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

        public static let access: AccessRequirement = .session
        public static let contract = MethodContract(
            summary:
                "A page of at most 50 join applications to a group, newest first, pending and handled, with unreadCount (pending). Owner and admins (group.types handleApplications). Pass nextSeq back until it is 0.",
            tags: ["group", "im"],
            params: [
                .init("groupID", JSONSchema.string, required: true),
                .init("nextSeq", JSONSchema.integer),
            ],
            result: "applications",
            JSONSchema.object(
                required: ["applications", "unreadCount", "nextSeq"],
                [
                    "applications": JSONSchema.array(of: JSONSchema.ref("GroupApplication")),
                    "unreadCount": JSONSchema.integer,
                    "nextSeq": JSONSchema.integer,
                ]
            ),
            errors: [
                ErrorReason.unauthorized, ErrorReason.groupNotFound, ErrorReason.groupDismissed, ErrorReason.notAllowed, ErrorReason.notAMember,
                ErrorReason.unsupportedForType,
            ],
            example: .init(
                params: ["groupID": "@TGS#2C5SZEAEF"],
                result: [
                    "applications": [
                        [
                            "applicationID": 7,
                            "groupID": "@TGS#2C5SZEAEF",
                            "fromUser": "4f1c2e0a9b8d4c7e8f6a5b4c3d2e1f02",
                            "type": "JOIN",
                            "requestMsg": "Hi!",
                            "status": "PENDING",
                            "handledBy": nil,
                            "handledMsg": "",
                            "createdAt": 1_795_348_702_624,
                            "handledAt": nil,
                        ]
                    ],
                    "unreadCount": 1,
                    "nextSeq": 0,
                ]
            )
        )
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

        public static let access: AccessRequirement = .session
        public static let contract = MethodContract.applicationHandling(
            summary:
                "Accepts a pending join application (owner and admins). The applicant joins (members get memberEnter); the applicant alone gets applicationProcessed. Handling an application twice gives 10024."
        )
    }

    /// `group.refuseApplication`: owner or admin.
    public enum RefuseApplication: RPCMethod {
        public typealias Params = ApplicationDecision
        public typealias Result = Bool
        public static let name = "group.refuseApplication"

        public static let access: AccessRequirement = .session
        public static let contract = MethodContract.applicationHandling(
            summary:
                "Refuses a pending join application (owner and admins). The applicant stays out; the applicant alone gets applicationProcessed. Handling an application twice gives 10024."
        )
    }

    /// `group.quit`: the caller leaves.
    public enum Quit: RPCMethod {
        public typealias Params = GroupRef
        public typealias Result = Bool
        public static let name = "group.quit"

        public static let access: AccessRequirement = .session
        public static let contract = MethodContract(
            summary:
                "The caller leaves: members get memberLeave, the caller quitFromGroup (not in AVChatRoom). The owner may quit only a Work group (10009 otherwise); the longest-standing member then becomes owner, and a group left empty is dismissed.",
            tags: ["group", "im"],
            params: [
                .init("groupID", JSONSchema.string, required: true)
            ],
            result: "quit",
            JSONSchema.boolean,
            errors: [
                ErrorReason.unauthorized, ErrorReason.groupNotFound, ErrorReason.groupDismissed, ErrorReason.notAMember, ErrorReason.ownerCannotQuit,
            ],
            writes: true,
            example: .init(params: ["groupID": "@TGS#2C5SZEAEF"], result: true)
        )
    }

    /// `group.dismiss`: the group ends; its id answers 10010 from then on (IM types).
    public enum Dismiss: RPCMethod {
        public typealias Params = GroupRef
        public typealias Result = Bool
        public static let name = "group.dismiss"

        public static let access: AccessRequirement = .session
        public static let contract = MethodContract(
            summary:
                "Dismisses a group (owner; Work groups: app admins only). Members get groupDismissed; the id answers 10010 from then on (IM types; a Basic group is simply deleted).",
            tags: ["group", "im"],
            params: [
                .init("groupID", JSONSchema.string, required: true)
            ],
            result: "dismissed",
            JSONSchema.boolean,
            errors: [
                ErrorReason.unauthorized, ErrorReason.groupNotFound, ErrorReason.groupDismissed, ErrorReason.notAllowed, ErrorReason.notAMember,
                ErrorReason.unsupportedForType, ErrorReason.permissionDenied,
            ],
            writes: true,
            example: .init(params: ["groupID": "@TGS#2C5SZEAEF"], result: true)
        )
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

        public static let access: AccessRequirement = .session
        public static let contract = MethodContract(
            summary: "The groups the caller (or, for an admin, userID) is a member of, with their profiles; AVChatRoom groups are not listed.",
            tags: ["group", "im"],
            params: [
                .init("userID", JSONSchema.string)
            ],
            result: "groups",
            JSONSchema.object(required: ["groups"], ["groups": JSONSchema.array(of: JSONSchema.ref("GroupProfile"))]),
            errors: [ErrorReason.unauthorized, ErrorReason.permissionDenied],
            example: .init(result: ["groups": [ContractExamples.groupProfile]])
        )
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

        public static let access: AccessRequirement = .session
        public static let contract = MethodContract(
            summary: "Profiles of several groups at once (at most 100); ids that name no group come back in notFound, dismissed ones in dismissed.",
            tags: ["group", "im"],
            params: [
                .init("groupIDs", JSONSchema.array(of: JSONSchema.string), required: true)
            ],
            result: "info",
            JSONSchema.object(
                required: ["groups", "notFound", "dismissed"],
                [
                    "groups": JSONSchema.array(of: JSONSchema.ref("GroupProfile")),
                    "notFound": JSONSchema.array(of: JSONSchema.string),
                    "dismissed": JSONSchema.array(of: JSONSchema.string),
                ]
            ),
            errors: [ErrorReason.unauthorized, ErrorReason.invalidParameters],
            example: .init(
                params: ["groupIDs": ["@TGS#2C5SZEAEF", "nope"]],
                result: ["groups": [ContractExamples.groupProfile], "notFound": ["nope"], "dismissed": []]
            )
        )
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

        public static let access: AccessRequirement = .session
        public static let contract = MethodContract(
            summary:
                "Changes the profile (absent fields stay): name, introduction, notification, faceURL, custom and addOpt (group.types editProfile), allMuted (group.types mute). Members get groupInfoChanged with changeTypes (Tencent's 1 name, 2 introduction, 3 notification, 4 face, 6 custom, 8 shut-up-all) and, for allMuted, allMembersMuted.",
            tags: ["group", "im"],
            params: [
                .init("groupID", JSONSchema.string, required: true),
                .init("name", JSONSchema.string),
                .init("introduction", JSONSchema.string),
                .init("notification", JSONSchema.string),
                .init("faceURL", JSONSchema.string),
                .init("addOpt", JSONSchema.oneOf(GroupMethods.AddOption.self)),
                .init("allMuted", JSONSchema.boolean),
                .init("custom", JSONSchema.stringMap),
            ],
            result: "group",
            JSONSchema.ref("GroupProfile"),
            errors: [
                ErrorReason.unauthorized, ErrorReason.groupNotFound, ErrorReason.groupDismissed, ErrorReason.notAllowed, ErrorReason.notAMember,
                ErrorReason.unsupportedForType, ErrorReason.invalidParameters, ErrorReason.permissionDenied, ErrorReason.invalidInputData,
            ],
            writes: true,
            example: .init(
                params: ["groupID": "@TGS#2C5SZEAEF", "notification": "Meeting on Friday"],
                result: ContractExamples.groupProfile.merging(["notification": "Meeting on Friday"])
            )
        )
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

        public static let access: AccessRequirement = .session
        public static let contract = MethodContract(
            summary:
                "The caller's message receive option in a group (members only): RECEIVE, NOT_RECEIVE (no newMessage events, live or on replay; every other event still comes) or RECEIVE_NOT_NOTIFY (delivered as RECEIVE: Guild sends no push notifications). Raises no event.",
            tags: ["group", "im"],
            params: [
                .init("groupID", JSONSchema.string, required: true),
                .init("option", JSONSchema.oneOf(GroupMethods.ReceiveOption.self), required: true),
            ],
            result: "set",
            JSONSchema.boolean,
            errors: [ErrorReason.unauthorized, ErrorReason.groupNotFound, ErrorReason.groupDismissed, ErrorReason.notAMember],
            writes: true,
            example: .init(params: ["groupID": "@TGS#2C5SZEAEF", "option": "RECEIVE_NOT_NOTIFY"], result: true)
        )
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

        public static let access: AccessRequirement = .session
        public static let contract = MethodContract.attributeWrite(
            summary:
                "Replaces every attribute of an AVChatRoom group (the only type with attributes in Tencent IM; members only): at most 16 keys of 1-32 bytes, values at most 4 KB, 16 KB in all. At most 5 writes a second per group (10049). Members get groupAttributeChanged with the full map."
        )
    }

    /// `group.setAttributes`: adds or changes attributes.
    public enum SetAttributes: RPCMethod {
        public typealias Params = AttributesWrite
        public typealias Result = AttributesResult
        public static let name = "group.setAttributes"

        public static let access: AccessRequirement = .session
        public static let contract = MethodContract.attributeWrite(
            summary: "Adds or changes attributes (members only), within the limits of group.initAttributes."
        )
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

        public static let access: AccessRequirement = .session
        public static let contract = MethodContract(
            summary: "Removes attributes by key; keys null or absent removes all (members only).",
            tags: ["group", "im"],
            params: [
                .init("groupID", JSONSchema.string, required: true),
                .init("keys", ["type": ["array", "null"], "items": JSONSchema.string]),
                .init("version", JSONSchema.integer, "The version this write is based on: if another write came first, 10056"),
            ],
            result: "attributes",
            JSONSchema.object(required: ["attributes", "version"], ["attributes": JSONSchema.stringMap, "version": JSONSchema.integer]),
            errors: [
                ErrorReason.unauthorized, ErrorReason.groupNotFound, ErrorReason.groupDismissed, ErrorReason.notAMember,
                ErrorReason.unsupportedForType,
                ErrorReason.attributeConflict, ErrorReason.attributeRateLimited,
            ],
            writes: true,
            example: .init(params: ["groupID": "@TGS#2C5SZEAEF", "keys": ["mic1"]], result: ["attributes": [:], "version": 4])
        )
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

        public static let access: AccessRequirement = .session
        public static let contract = MethodContract(
            summary: "A group's attributes (all, or the keys named) and their version (members only).",
            tags: ["group", "im"],
            params: [
                .init("groupID", JSONSchema.string, required: true),
                .init("keys", JSONSchema.array(of: JSONSchema.string)),
            ],
            result: "attributes",
            JSONSchema.object(required: ["attributes", "version"], ["attributes": JSONSchema.stringMap, "version": JSONSchema.integer]),
            errors: [
                ErrorReason.unauthorized, ErrorReason.groupNotFound, ErrorReason.groupDismissed, ErrorReason.notAMember,
                ErrorReason.unsupportedForType,
            ],
            example: .init(params: ["groupID": "@TGS#2C5SZEAEF"], result: ["attributes": ["mic1": "alice"], "version": 3])
        )
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

        public static let access: AccessRequirement = .session
        public static let contract = MethodContract(
            summary:
                "A page of members (limit 1-50, default 50) in join order, filtered by role (ALL, OWNER, ADMIN, COMMON). Start with nextSeq 0 and pass it back until 0 comes back: members who join meanwhile come at the end, none is skipped or repeated.",
            tags: ["group", "im"],
            params: [
                .init("groupID", JSONSchema.string, required: true),
                .init("filter", JSONSchema.oneOf(GroupMethods.MemberFilter.self)),
                .init("nextSeq", JSONSchema.integer),
                .init("limit", JSONSchema.integer, "Members per page, 1-50 (default 50)"),
            ],
            result: "page",
            JSONSchema.object(
                required: ["members", "nextSeq"],
                [
                    "members": JSONSchema.array(of: JSONSchema.ref("GroupMemberDetail")),
                    "nextSeq": JSONSchema.integer,
                ]
            ),
            errors: [ErrorReason.unauthorized, ErrorReason.groupNotFound, ErrorReason.groupDismissed, ErrorReason.notAMember],
            example: .init(
                params: ["groupID": "@TGS#2C5SZEAEF", "filter": "ALL", "nextSeq": 0],
                result: ["members": [ContractExamples.member], "nextSeq": 0]
            )
        )
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

        public static let access: AccessRequirement = .session
        public static let contract = MethodContract(
            summary: "Details of the named members (at most 100; users who are not members are left out).",
            tags: ["group", "im"],
            params: [
                .init("groupID", JSONSchema.string, required: true),
                .init("userIDs", JSONSchema.array(of: JSONSchema.string), required: true),
            ],
            result: "members",
            JSONSchema.object(required: ["members"], ["members": JSONSchema.array(of: JSONSchema.ref("GroupMemberDetail"))]),
            errors: [
                ErrorReason.unauthorized, ErrorReason.groupNotFound, ErrorReason.groupDismissed, ErrorReason.notAMember,
                ErrorReason.invalidParameters,
            ],
            example: .init(
                params: ["groupID": "@TGS#2C5SZEAEF", "userIDs": ["4f1c2e0a9b8d4c7e8f6a5b4c3d2e1f00"]],
                result: ["members": [ContractExamples.member]]
            )
        )
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

        public static let access: AccessRequirement = .session
        public static let contract = MethodContract(
            summary:
                "Changes one member's nameCard (at most 50 bytes) and custom fields (the member themself, or the owner and admins), role (as group.setMemberRole) and muteUntil (ms since the epoch, 0 unmutes; as group.muteMember), in one transaction.",
            tags: ["group", "im"],
            params: [
                .init("groupID", JSONSchema.string, required: true),
                .init("userID", JSONSchema.string, required: true),
                .init("nameCard", JSONSchema.string),
                .init("role", JSONSchema.oneOf(["admin", "member"])),
                .init("muteUntil", JSONSchema.integer),
                .init("custom", JSONSchema.stringMap),
            ],
            result: "set",
            JSONSchema.boolean,
            errors: [
                ErrorReason.unauthorized, ErrorReason.groupNotFound, ErrorReason.groupDismissed, ErrorReason.notAMember, ErrorReason.notAllowed,
                ErrorReason.unsupportedForType, ErrorReason.invalidParameters,
            ],
            writes: true,
            example: .init(params: ["groupID": "@TGS#2C5SZEAEF", "userID": "4f1c2e0a9b8d4c7e8f6a5b4c3d2e1f02", "nameCard": "Bobby"], result: true)
        )
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

        public static let access: AccessRequirement = .session
        public static let contract = MethodContract(
            summary:
                "Mutes a member for seconds (0 unmutes): owner and admins (admins only ordinary members; nobody the owner). The mute survives leaving and re-joining; a muted member's group.sendMessage gets 10017. Members get memberInfoChanged (not in Meeting or AVChatRoom).",
            tags: ["group", "im"],
            params: [
                .init("groupID", JSONSchema.string, required: true),
                .init("userID", JSONSchema.string, required: true),
                .init("seconds", JSONSchema.integer, required: true),
            ],
            result: "mute",
            JSONSchema.object(required: ["muteUntil"], ["muteUntil": JSONSchema.integer]),
            errors: [
                ErrorReason.unauthorized, ErrorReason.groupNotFound, ErrorReason.groupDismissed, ErrorReason.notAMember, ErrorReason.notAllowed,
                ErrorReason.unsupportedForType, ErrorReason.invalidParameters,
            ],
            writes: true,
            example: .init(
                params: ["groupID": "@TGS#2C5SZEAEF", "userID": "4f1c2e0a9b8d4c7e8f6a5b4c3d2e1f02", "seconds": 600],
                result: ["muteUntil": 1_795_349_302_624]
            )
        )
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

        public static let access: AccessRequirement = .session
        public static let contract = MethodContract(
            summary:
                "Makes a member an admin, or an admin a member again: the owner only, in types with admins (Public, Meeting, Community). The owner's role changes only by transfer. Members get grantAdministrator or revokeAdministrator (Meeting: none).",
            tags: ["group", "im"],
            params: [
                .init("groupID", JSONSchema.string, required: true),
                .init("userID", JSONSchema.string, required: true),
                .init("role", JSONSchema.oneOf(["admin", "member"]), required: true),
            ],
            result: "set",
            JSONSchema.boolean,
            errors: [
                ErrorReason.unauthorized, ErrorReason.groupNotFound, ErrorReason.groupDismissed, ErrorReason.notAMember, ErrorReason.notAllowed,
                ErrorReason.unsupportedForType, ErrorReason.invalidParameters,
            ],
            writes: true,
            example: .init(params: ["groupID": "@TGS#2C5SZEAEF", "userID": "4f1c2e0a9b8d4c7e8f6a5b4c3d2e1f02", "role": "admin"], result: true)
        )
    }

    /// `group.transferOwner`: owner only; the new owner must be a member (IM types).
    public enum TransferOwner: RPCMethod {
        public typealias Params = ChangeOwner.Params
        public typealias Result = GroupInfo
        public static let name = "group.transferOwner"

        public static let access: AccessRequirement = .session
        public static let contract = MethodContract(
            summary:
                "Hands ownership to a member (the owner, or an app admin; AVChatRoom refuses). The old owner stays a member; members get groupInfoChanged with change type 5.",
            tags: ["group", "im"],
            params: [
                .init("groupID", JSONSchema.string, required: true),
                .init("userID", JSONSchema.string, required: true),
            ],
            result: "group",
            JSONSchema.ref("GroupInfo"),
            errors: [
                ErrorReason.unauthorized, ErrorReason.groupNotFound, ErrorReason.groupDismissed, ErrorReason.notAMember, ErrorReason.notAllowed,
                ErrorReason.unsupportedForType, ErrorReason.userNotFound, ErrorReason.permissionDenied,
            ],
            writes: true,
            example: .init(
                params: ["groupID": "@TGS#2C5SZEAEF", "userID": "4f1c2e0a9b8d4c7e8f6a5b4c3d2e1f02"],
                result: ContractExamples.group.merging(["owner": "4f1c2e0a9b8d4c7e8f6a5b4c3d2e1f02"])
            )
        )
    }
}

extension GroupMethods {
    /// The IM groups area's methods, in the published contract (`protocol/openrpc.json`). A new method of the area is added here.
    public static let imMethods: [any RPCMethod.Type] = [
        GroupMethods.AcceptApplication.self,
        GroupMethods.Applications.self,
        GroupMethods.DeleteAttributes.self,
        GroupMethods.Dismiss.self,
        GroupMethods.GetAttributes.self,
        GroupMethods.GetInfo.self,
        GroupMethods.InitAttributes.self,
        GroupMethods.Join.self,
        GroupMethods.JoinedList.self,
        GroupMethods.MemberList.self,
        GroupMethods.MembersInfo.self,
        GroupMethods.MuteMember.self,
        GroupMethods.Quit.self,
        GroupMethods.RefuseApplication.self,
        GroupMethods.SendMessage.self,
        GroupMethods.History.self,
        GroupMethods.UnreadCounts.self,
        GroupMethods.MarkRead.self,
        GroupMethods.RecallMessage.self,
        GroupMethods.SetAttributes.self,
        GroupMethods.SetInfo.self,
        GroupMethods.SetMemberInfo.self,
        GroupMethods.SetMemberRole.self,
        GroupMethods.SetReceiveOption.self,
        GroupMethods.TransferOwner.self,
        GroupMethods.Types.self,
    ]
}

extension MethodContract {
    /// The contract of an attribute write (`group.initAttributes`, `group.setAttributes`): the same params,
    /// result, errors and example; only the summary differs.
    static func attributeWrite(summary: String) -> MethodContract {
        MethodContract(
            summary: summary,
            tags: ["group", "im"],
            params: [
                .init("groupID", JSONSchema.string, required: true),
                .init("attributes", JSONSchema.stringMap, required: true),
                .init("version", JSONSchema.integer, "The version this write is based on: if another write came first, 10056"),
            ],
            result: "attributes",
            JSONSchema.object(required: ["attributes", "version"], ["attributes": JSONSchema.stringMap, "version": JSONSchema.integer]),
            errors: [
                ErrorReason.unauthorized, ErrorReason.groupNotFound, ErrorReason.groupDismissed, ErrorReason.notAMember,
                ErrorReason.unsupportedForType,
                ErrorReason.invalidParameters, ErrorReason.attributeConflict, ErrorReason.attributeRateLimited,
            ],
            writes: true,
            example: .init(
                params: ["groupID": "@TGS#2C5SZEAEF", "attributes": ["mic1": "alice"]],
                result: ["attributes": ["mic1": "alice"], "version": 3]
            )
        )
    }
}

extension MethodContract {
    /// The contract of handling a join application (`group.acceptApplication`, `group.refuseApplication`): the
    /// same params, result, errors and example; only the summary differs.
    static func applicationHandling(summary: String) -> MethodContract {
        MethodContract(
            summary: summary,
            tags: ["group", "im"],
            params: [
                .init("groupID", JSONSchema.string, required: true),
                .init("applicationID", JSONSchema.integer, required: true),
                .init("message", JSONSchema.string, "For the applicant: at most 300 bytes"),
            ],
            result: "handled",
            JSONSchema.boolean,
            errors: [
                ErrorReason.unauthorized, ErrorReason.groupNotFound, ErrorReason.groupDismissed, ErrorReason.alreadyProcessed,
                ErrorReason.invalidParameters, ErrorReason.notAllowed, ErrorReason.notAMember, ErrorReason.unsupportedForType,
                ErrorReason.groupFull,
            ],
            example: .init(params: ["groupID": "@TGS#2C5SZEAEF", "applicationID": 7, "message": "Welcome"], result: true)
        )
    }
}
