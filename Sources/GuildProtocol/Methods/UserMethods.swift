import GuildJSON

/// `user.*`: registration, login, tokens and profiles (Kii Cloud semantics).
public enum UserMethods: Sendable {
    /// `user.register`: creates a user with a login name, email address or phone number and a password,
    /// logs them in and binds the connection to the new session.
    public enum Register: RPCMethod {
        public struct Params: Codable, Hashable, Sendable {
            public var username: String?
            public var email: String?
            public var phone: String?
            public var password: String
            public var displayName: String?
            public var fields: [String: JSONValue]?
            public init(
                username: String? = nil,
                email: String? = nil,
                phone: String? = nil,
                password: String,
                displayName: String? = nil,
                fields: [String: JSONValue]? = nil
            ) {
                self.username = username
                self.email = email
                self.phone = phone
                self.password = password
                self.displayName = displayName
                self.fields = fields
            }
        }
        public typealias Result = AuthResult
        public static let name = "user.register"
    }

    /// `user.registerPseudo`: creates a user with no login identity; its token never expires.
    public enum RegisterPseudo: RPCMethod {
        public struct Params: Codable, Hashable, Sendable {
            public var displayName: String?
            public var fields: [String: JSONValue]?
            public init(displayName: String? = nil, fields: [String: JSONValue]? = nil) {
                self.displayName = displayName
                self.fields = fields
            }
        }
        public typealias Result = AuthResult
        public static let name = "user.registerPseudo"
    }

    /// `user.login`: exchanges one of `username`, `email` or `phone` and the password for a session.
    public enum Login: RPCMethod {
        public struct Params: Codable, Hashable, Sendable {
            public var username: String?
            public var email: String?
            public var phone: String?
            public var password: String
            public init(username: String? = nil, email: String? = nil, phone: String? = nil, password: String) {
                self.username = username
                self.email = email
                self.phone = phone
                self.password = password
            }
        }
        public typealias Result = AuthResult
        public static let name = "user.login"
    }

    /// `user.refresh`: exchanges a refresh token (single use) for a new access and refresh token; both old
    /// tokens stop working.
    public enum Refresh: RPCMethod {
        public struct Params: Codable, Hashable, Sendable {
            public var refreshToken: String
            public init(refreshToken: String) {
                self.refreshToken = refreshToken
            }
        }
        public typealias Result = AuthResult
        public static let name = "user.refresh"
    }

    /// `user.putIdentity`: gives the calling pseudo user a login identity and password, in place: same
    /// userID, and the current token keeps working.
    public enum PutIdentity: RPCMethod {
        /// The same shape as `user.login`: one or more of username, email, phone, and a password.
        public typealias Params = Login.Params
        public typealias Result = UserProfile
        public static let name = "user.putIdentity"
    }

    /// `user.changePassword`: changes the caller's password and revokes every token they hold; returns a
    /// fresh session, to which the connection is rebound.
    public enum ChangePassword: RPCMethod {
        public struct Params: Codable, Hashable, Sendable {
            public var oldPassword: String
            public var newPassword: String
            public init(oldPassword: String, newPassword: String) {
                self.oldPassword = oldPassword
                self.newPassword = newPassword
            }
        }
        public typealias Result = AuthResult
        public static let name = "user.changePassword"
    }

    /// `user.get`: a user's profile (the caller's own when `userID` is absent).
    public enum Get: RPCMethod {
        public struct Params: Codable, Hashable, Sendable {
            public var userID: String?
            public init(userID: String? = nil) {
                self.userID = userID
            }
        }
        public typealias Result = UserProfile
        public static let name = "user.get"
    }

    /// `user.update`: changes display name, email, phone or custom fields (merged; a `null` field value
    /// removes that field). The caller's own profile, or any as admin.
    public enum Update: RPCMethod {
        public struct Params: Codable, Hashable, Sendable {
            public var userID: String?
            public var displayName: String?
            public var email: String?
            public var phone: String?
            public var fields: [String: JSONValue]?
            public init(
                userID: String? = nil,
                displayName: String? = nil,
                email: String? = nil,
                phone: String? = nil,
                fields: [String: JSONValue]? = nil
            ) {
                self.userID = userID
                self.displayName = displayName
                self.email = email
                self.phone = phone
                self.fields = fields
            }
        }
        public typealias Result = UserProfile
        public static let name = "user.update"
    }

    /// `user.delete`: deletes a user and every token they hold. The caller themself, or any user as admin.
    public enum Delete: RPCMethod {
        public struct Params: Codable, Hashable, Sendable {
            public var userID: String?
            public init(userID: String? = nil) {
                self.userID = userID
            }
        }
        public struct Result: Codable, Hashable, Sendable {
            public var userID: String
            public var deleted: Bool
            public init(userID: String, deleted: Bool) {
                self.userID = userID
                self.deleted = deleted
            }
        }
        public static let name = "user.delete"
    }

    /// `user.memberOfGroups`: the groups a user is a member of (the caller's own when `userID` is absent).
    public enum MemberOfGroups: RPCMethod {
        public typealias Params = Get.Params
        public struct Result: Codable, Hashable, Sendable {
            public var groups: [GroupInfo]
            /// The daemon's shortcut: the `groups` array already as JSON text (never decoded into; not part of
            /// the wire form's fields).
            public var encodedGroups: [UInt8]?

            public init(groups: [GroupInfo]) { self.groups = groups }

            /// A result whose groups are given as a JSON array, written out as is.
            public init(encodedGroups: [UInt8]) {
                self.groups = []
                self.encodedGroups = encodedGroups
            }

            private enum CodingKeys: String, CodingKey {
                case groups
            }
        }
        public static let name = "user.memberOfGroups"
        public static var isExpensive: Bool { true }
    }

    /// `user.ownerOfGroups`: the groups a user owns (always a subset of `user.memberOfGroups`).
    public enum OwnerOfGroups: RPCMethod {
        public typealias Params = Get.Params
        public typealias Result = MemberOfGroups.Result
        public static let name = "user.ownerOfGroups"
        public static var isExpensive: Bool { true }
    }
}
