import GuildJSON

/// `group.*`: groups, members and owners (Kii rules for `Basic`).
public enum GroupMethods: Sendable {
    /// `group.create`: the caller becomes owner and member; unknown initial members come back in
    /// `notFoundUsers` without failing the call. An admin may name another `owner`, or none.
    public enum Create: RPCMethod {
        public struct Params: Codable, Hashable, Sendable {
            public var name: String
            public var groupID: String?
            public var type: GroupType?
            public var members: [MemberSpec]?
            public var owner: String?
            public var introduction: String?
            public var notification: String?
            public var faceURL: String?
            public var addOpt: AddOption?
            public var custom: [String: String]?
            public init(
                name: String,
                groupID: String? = nil,
                type: GroupType? = nil,
                members: [MemberSpec]? = nil,
                owner: String? = nil,
                introduction: String? = nil,
                notification: String? = nil,
                faceURL: String? = nil,
                addOpt: AddOption? = nil,
                custom: [String: String]? = nil
            ) {
                self.name = name
                self.groupID = groupID
                self.type = type
                self.members = members
                self.owner = owner
                self.introduction = introduction
                self.notification = notification
                self.faceURL = faceURL
                self.addOpt = addOpt
                self.custom = custom
            }
        }
        public struct Result: Codable, Hashable, Sendable {
            public var group: GroupInfo
            public var notFoundUsers: [String]
            public init(group: GroupInfo, notFoundUsers: [String]) {
                self.group = group
                self.notFoundUsers = notFoundUsers
            }
        }
        public static let name = "group.create"
        public static var adminOnlyParameters: [String] { ["owner"] }

        public static let access: AccessRequirement = .session
        public static let contract = MethodContract(
            summary:
                "Creates a group; the caller becomes owner and member. Unknown initial members come back in notFoundUsers without failing the call. An admin may name another owner, or none. The type decides the rules (group.types).",
            tags: ["group"],
            params: [
                .init("name", JSONSchema.string, required: true, "Basic: 1-190 characters; IM types: 1-30 bytes (Tencent IM)"),
                .init(
                    "groupID",
                    JSONSchema.string,
                    "Basic: at most 30 of [a-z0-9_.-]; IM types: 1-48 bytes of printable ASCII, not starting @TGS# (Community: must start @TGS#_); generated when absent"
                ),
                .init("type", JSONSchema.oneOf(GroupMethods.GroupType.self), "Default Basic (Kii rules)"),
                .init(
                    "members",
                    JSONSchema.array(of: [
                        "oneOf": [
                            JSONSchema.string,
                            JSONSchema.object(required: ["userID"], ["userID": JSONSchema.string, "role": JSONSchema.oneOf(["admin", "member"])]),
                        ]
                    ]),
                    "Initial members: userIDs, or {userID, role}"
                ),
                .init("owner", JSONSchema.string, "Admins only: the owner's userID"),
                .init("introduction", JSONSchema.string, "At most 400 bytes"),
                .init("notification", JSONSchema.string, "At most 400 bytes"),
                .init("faceURL", JSONSchema.string, "At most 500 bytes"),
                .init("addOpt", JSONSchema.oneOf(GroupMethods.AddOption.self), "How non-members join (default per type)"),
                .init("custom", JSONSchema.stringMap, "Custom fields: keys 1-16 bytes, values at most 512 bytes"),
            ],
            result: "created",
            JSONSchema.object(
                required: ["group", "notFoundUsers"],
                ["group": JSONSchema.ref("GroupInfo"), "notFoundUsers": JSONSchema.array(of: JSONSchema.string)]
            ),
            errors: [
                ErrorReason.unauthorized, ErrorReason.invalidInputData, ErrorReason.groupAlreadyExists, ErrorReason.userNotFound,
                ErrorReason.permissionDenied, ErrorReason.invalidParameters, ErrorReason.invalidGroupID, ErrorReason.groupIDInUse,
                ErrorReason.groupFull, ErrorReason.unsupportedForType,
            ],
            writes: true,
            example: .init(
                params: [
                    "name": "Sales Div.",
                    "groupID": "sales-div",
                    "members": ["4f1c2e0a9b8d4c7e8f6a5b4c3d2e1f01", "nope"],
                ],
                result: ["group": ContractExamples.group, "notFoundUsers": ["nope"]]
            )
        )
    }

    /// An initial member: a userID string (role `member`), or `{"userID": ..., "role": "admin" | "member"}`.
    public struct MemberSpec: Codable, Hashable, Sendable, ExpressibleByStringLiteral {
        public var userID: String
        public var role: Role?
        public init(userID: String, role: Role? = nil) {
            self.userID = userID
            self.role = role
        }
        public init(stringLiteral value: String) { self.init(userID: value) }
        private enum CodingKeys: String, CodingKey { case userID, role }
        public init(from decoder: any Decoder) throws {
            if let userID = try? decoder.singleValueContainer().decode(String.self) {
                self.init(userID: userID)
                return
            }
            let container = try decoder.container(keyedBy: CodingKeys.self)
            let userID = try container.decode(String.self, forKey: .userID)
            guard let name = try container.decodeIfPresent(String.self, forKey: .role) else {
                self.init(userID: userID)
                return
            }
            guard let role = Role(lenient: name) else {
                // A bad role names the whole `members` param, as it always has.
                throw DecodingError.dataCorrupted(
                    .init(codingPath: Array(decoder.codingPath.prefix(1)), debugDescription: "a role must be one of \(Role.choices)")
                )
            }
            self.init(userID: userID, role: role)
        }
        public func encode(to encoder: any Encoder) throws {
            if let role = self.role {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(self.userID, forKey: .userID)
                try container.encode(role, forKey: .role)
            } else {
                var container = encoder.singleValueContainer()
                try container.encode(self.userID)
            }
        }
    }

    /// Params naming one group.
    public struct GroupRef: Codable, Hashable, Sendable {
        public var groupID: String
        public init(groupID: String) { self.groupID = groupID }
    }

    /// `group.get`: a group (any caller with a session may read any group).
    public enum Get: RPCMethod {
        public typealias Params = GroupRef
        public typealias Result = GroupInfo
        public static let name = "group.get"

        public static let access: AccessRequirement = .session
        public static let contract = MethodContract(
            summary: "A group. Any caller with a session may read any group (Kii).",
            tags: ["group"],
            params: [
                .init("groupID", JSONSchema.string, required: true)
            ],
            result: "group",
            JSONSchema.ref("GroupInfo"),
            errors: [ErrorReason.unauthorized, ErrorReason.groupNotFound],
            example: .init(params: ["groupID": "sales-div"], result: ContractExamples.group)
        )
    }

    /// `group.rename`: owner or admin.
    public enum Rename: RPCMethod {
        public struct Params: Codable, Hashable, Sendable {
            public var groupID: String
            public var name: String
            public init(groupID: String, name: String) {
                self.groupID = groupID
                self.name = name
            }
        }
        public typealias Result = GroupInfo
        public static let name = "group.rename"

        public static let access: AccessRequirement = .session
        public static let contract = MethodContract(
            summary: "Renames a group (owner or admin). Members get groupInfoChanged.",
            tags: ["group"],
            params: [
                .init("groupID", JSONSchema.string, required: true),
                .init("name", JSONSchema.string, required: true),
            ],
            result: "group",
            JSONSchema.ref("GroupInfo"),
            errors: [ErrorReason.unauthorized, ErrorReason.groupNotFound, ErrorReason.permissionDenied, ErrorReason.invalidInputData],
            writes: true,
            example: .init(params: ["groupID": "sales-div", "name": "Sales"], result: ContractExamples.group.merging(["name": "Sales"]))
        )
    }

    /// `group.delete`: owner or admin; members get `groupDismissed`.
    public enum Delete: RPCMethod {
        public typealias Params = GroupRef
        public typealias Result = Bool
        public static let name = "group.delete"

        public static let access: AccessRequirement = .session
        public static let contract = MethodContract(
            summary: "Deletes a group (owner or admin). Members get groupDismissed.",
            tags: ["group"],
            params: [
                .init("groupID", JSONSchema.string, required: true)
            ],
            result: "deleted",
            JSONSchema.boolean,
            errors: [ErrorReason.unauthorized, ErrorReason.groupNotFound, ErrorReason.permissionDenied],
            writes: true,
            example: .init(params: ["groupID": "sales-div"], result: true)
        )
    }

    /// Params naming a group and users.
    public struct MembersChange: Codable, Hashable, Sendable {
        public var groupID: String
        public var userIDs: [String]
        public init(groupID: String, userIDs: [String]) {
            self.groupID = groupID
            self.userIDs = userIDs
        }
    }

    /// The per-user results of a membership change.
    public struct MembersChangeResult: Codable, Hashable, Sendable {
        public var results: [MemberResultEntry]
        public init(results: [MemberResultEntry]) { self.results = results }
    }

    /// `group.addMembers`: owner or admin (Basic); adding an existing member succeeds.
    public enum AddMembers: RPCMethod {
        public typealias Params = MembersChange
        public typealias Result = MembersChangeResult
        public static let name = "group.addMembers"

        public static let access: AccessRequirement = .session
        public static let contract = MethodContract(
            summary:
                "Adds members (Basic: owner or admin). Per user: SUCC (also for an existing member, as Kii), FAIL with reason USER_NOT_FOUND. Members get memberInvited.",
            tags: ["group"],
            params: [
                .init("groupID", JSONSchema.string, required: true),
                .init("userIDs", JSONSchema.array(of: JSONSchema.string), required: true),
            ],
            result: "results",
            JSONSchema.object(required: ["results"], ["results": JSONSchema.array(of: JSONSchema.ref("MemberResult"))]),
            errors: [ErrorReason.unauthorized, ErrorReason.groupNotFound, ErrorReason.permissionDenied],
            writes: true,
            example: .init(
                params: ["groupID": "sales-div", "userIDs": ["4f1c2e0a9b8d4c7e8f6a5b4c3d2e1f02"]],
                result: ["results": [["userID": "4f1c2e0a9b8d4c7e8f6a5b4c3d2e1f02", "result": "SUCC"]]]
            )
        )
    }

    /// `group.removeMembers`: owner or admin removes anyone but the owner; a member may remove themself;
    /// removing a non-member fails for that user.
    public enum RemoveMembers: RPCMethod {
        public typealias Params = MembersChange
        public typealias Result = MembersChangeResult
        public static let name = "group.removeMembers"

        public static let access: AccessRequirement = .session
        public static let contract = MethodContract(
            summary:
                "Removes members: owner or admin removes anyone but the owner (memberKicked); a member may remove themself (memberLeave, and quitFromGroup to them). Per user: SUCC, or FAIL with NOT_A_MEMBER, PERMISSION_DENIED or OWNER_CANNOT_LEAVE.",
            tags: ["group"],
            params: [
                .init("groupID", JSONSchema.string, required: true),
                .init("userIDs", JSONSchema.array(of: JSONSchema.string), required: true),
            ],
            result: "results",
            JSONSchema.object(required: ["results"], ["results": JSONSchema.array(of: JSONSchema.ref("MemberResult"))]),
            errors: [ErrorReason.unauthorized, ErrorReason.groupNotFound],
            writes: true,
            example: .init(
                params: ["groupID": "sales-div", "userIDs": ["4f1c2e0a9b8d4c7e8f6a5b4c3d2e1f02"]],
                result: ["results": [["userID": "4f1c2e0a9b8d4c7e8f6a5b4c3d2e1f02", "result": "SUCC"]]]
            )
        )
    }

    /// `group.members`: a page of members in join order; pass `nextCursor` back until it is 0.
    public enum Members: RPCMethod {
        public struct Params: Codable, Hashable, Sendable {
            public var groupID: String
            public var cursor: Int64?
            public var limit: Int?
            public init(groupID: String, cursor: Int64? = nil, limit: Int? = nil) {
                self.groupID = groupID
                self.cursor = cursor
                self.limit = limit
            }
        }
        public struct Result: Codable, Hashable, Sendable {
            public var members: [GroupMember]
            /// 0 when this is the last page.
            public var nextCursor: Int64
            public init(members: [GroupMember], nextCursor: Int64) {
                self.members = members
                self.nextCursor = nextCursor
            }
        }
        public static let name = "group.members"
        public static var isExpensive: Bool { true }

        public static let access: AccessRequirement = .session
        public static let contract = MethodContract(
            summary:
                "A page of members in join order (at most 200; default 100). Pass nextCursor back until it is 0: no duplicates or omissions while members change.",
            tags: ["group"],
            params: [
                .init("groupID", JSONSchema.string, required: true),
                .init("cursor", JSONSchema.integer),
                .init("limit", JSONSchema.integer),
            ],
            result: "page",
            JSONSchema.object(
                required: ["members", "nextCursor"],
                [
                    "members": JSONSchema.array(of: JSONSchema.ref("GroupMember")),
                    "nextCursor": JSONSchema.integer,
                ]
            ),
            errors: [ErrorReason.unauthorized, ErrorReason.groupNotFound, ErrorReason.groupDismissed, ErrorReason.notAMember],
            example: .init(
                params: ["groupID": "sales-div", "limit": 2],
                result: [
                    "members": [["userID": "4f1c2e0a9b8d4c7e8f6a5b4c3d2e1f00", "role": "owner", "joinedAt": 1_795_348_702_624]],
                    "nextCursor": 0,
                ]
            )
        )
    }

    /// `group.owner`: the owner's userID, or null when ownerless.
    public enum Owner: RPCMethod {
        public typealias Params = GroupRef
        public struct Result: Codable, Hashable, Sendable {
            public var owner: String?
            public init(owner: String?) { self.owner = owner }
            public func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(self.owner, forKey: .owner)
            }
        }
        public static let name = "group.owner"

        public static let access: AccessRequirement = .session
        public static let contract = MethodContract(
            summary: "The owner's userID, or null for an ownerless group.",
            tags: ["group"],
            params: [
                .init("groupID", JSONSchema.string, required: true)
            ],
            result: "owner",
            JSONSchema.object(required: ["owner"], ["owner": JSONSchema.nullableString]),
            errors: [ErrorReason.unauthorized, ErrorReason.groupNotFound],
            example: .init(params: ["groupID": "sales-div"], result: ["owner": "4f1c2e0a9b8d4c7e8f6a5b4c3d2e1f00"])
        )
    }

    /// `group.changeOwner`: owner or admin (an ownerless group: admin only). Basic: the new owner may be a
    /// non-member and becomes one; the old owner stays a member.
    public enum ChangeOwner: RPCMethod {
        public struct Params: Codable, Hashable, Sendable {
            public var groupID: String
            public var userID: String
            public init(groupID: String, userID: String) {
                self.groupID = groupID
                self.userID = userID
            }
        }
        public typealias Result = GroupInfo
        public static let name = "group.changeOwner"

        public static let access: AccessRequirement = .session
        public static let contract = MethodContract(
            summary:
                "Makes userID the owner (owner or admin; an ownerless group: admin only). Basic: a non-member becomes a member; the old owner stays a member. Members get groupInfoChanged with changes.owner.",
            tags: ["group"],
            params: [
                .init("groupID", JSONSchema.string, required: true),
                .init("userID", JSONSchema.string, required: true),
            ],
            result: "group",
            JSONSchema.ref("GroupInfo"),
            errors: [ErrorReason.unauthorized, ErrorReason.groupNotFound, ErrorReason.permissionDenied, ErrorReason.userNotFound],
            writes: true,
            example: .init(
                params: ["groupID": "sales-div", "userID": "4f1c2e0a9b8d4c7e8f6a5b4c3d2e1f02"],
                result: ContractExamples.group.merging(["owner": "4f1c2e0a9b8d4c7e8f6a5b4c3d2e1f02"])
            )
        )
    }
}

extension GroupMethods {
    /// The groups area's methods (Kii groups and what every type shares), in the published contract (`protocol/openrpc.json`). A new method of the area is added here.
    public static let kiiMethods: [any RPCMethod.Type] = [
        GroupMethods.AddMembers.self,
        GroupMethods.ChangeOwner.self,
        GroupMethods.Create.self,
        GroupMethods.Delete.self,
        GroupMethods.Get.self,
        GroupMethods.Members.self,
        GroupMethods.Owner.self,
        GroupMethods.RemoveMembers.self,
        GroupMethods.Rename.self,
    ]
}
