/// `group.*`: groups, members and owners (Kii rules for `Basic`).
public enum GroupMethods: Sendable {
    /// `group.create`: the caller becomes owner and member; unknown initial members come back in
    /// `notFoundUsers` without failing the call. An admin may name another `owner`, or none.
    public enum Create: RPCMethod {
        public struct Params: Codable, Hashable, Sendable {
            public var name: String
            public var groupID: String?
            public var type: String?
            public var members: [String]?
            public var owner: String?
            public init(name: String, groupID: String? = nil, type: String? = nil, members: [String]? = nil, owner: String? = nil) {
                self.name = name
                self.groupID = groupID
                self.type = type
                self.members = members
                self.owner = owner
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
