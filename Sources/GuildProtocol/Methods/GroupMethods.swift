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
    }

    /// `group.delete`: owner or admin; members get `groupDismissed`.
    public enum Delete: RPCMethod {
        public typealias Params = GroupRef
        public typealias Result = Bool
        public static let name = "group.delete"
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
    }

    /// `group.removeMembers`: owner or admin removes anyone but the owner; a member may remove themself;
    /// removing a non-member fails for that user.
    public enum RemoveMembers: RPCMethod {
        public typealias Params = MembersChange
        public typealias Result = MembersChangeResult
        public static let name = "group.removeMembers"
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
    }
}
