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

        public static let access: AccessRequirement = .anyone
        public static let changesSession = true
        public static let contract = MethodContract(
            summary: "Creates a user with a login name, email or phone and a password; logs them in and binds the connection.",
            tags: ["user"],
            params: UserMethods.identityParams + [
                .init("password", JSONSchema.string, required: true, "4-50 printable ASCII characters"),
                .init("displayName", JSONSchema.string, "At most 50 characters"),
                .init("fields", JSONSchema.object, "Custom fields: at most 63 KB of JSON; names starting with '_' are dropped"),
            ],
            result: "auth",
            JSONSchema.ref("AuthResult"),
            errors: [ErrorReason.invalidInputData, ErrorReason.userAlreadyExists],
            writes: true,
            example: .init(params: ["username": "alice", "password": "s3cret!", "displayName": "Alice"], result: ContractExamples.auth)
        )
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

        public static let access: AccessRequirement = .anyone
        public static let changesSession = true
        public static let contract = MethodContract(
            summary: "Creates a pseudo user (no login identity); its token never expires. Binds the connection.",
            tags: ["user"],
            params: [
                .init("displayName", JSONSchema.string),
                .init("fields", JSONSchema.object, "Custom fields: at most 63 KB of JSON; names starting with '_' are dropped"),
            ],
            result: "auth",
            JSONSchema.ref("AuthResult"),
            errors: [ErrorReason.invalidInputData],
            writes: true,
            example: .init(
                params: ["displayName": "Guest"],
                result: [
                    "user": ContractExamples.profile.merging(["username": nil, "displayName": "Guest", "isPseudo": true]),
                    "accessToken": "gt_DD0RbSbC2h_pLGHoDO0SJxX-30z02i7FmgKFwHRpUco",
                    "refreshToken": nil,
                    "expiresAt": nil,
                ]
            )
        )
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

        public static let access: AccessRequirement = .anyone
        public static let changesSession = true
        public static let contract = MethodContract(
            summary: "Exchanges exactly one of username, email or phone and the password for a new session; binds the connection.",
            tags: ["user"],
            params: UserMethods.identityParams + [.init("password", JSONSchema.string, required: true)],
            result: "auth",
            JSONSchema.ref("AuthResult"),
            errors: [ErrorReason.invalidCredentials, ErrorReason.invalidInputData],
            writes: true,
            example: .init(params: ["username": "alice", "password": "s3cret!"], result: ContractExamples.auth)
        )
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

        public static let access: AccessRequirement = .anyone
        public static let changesSession = true
        public static let contract = MethodContract(
            summary: "Exchanges a refresh token (single use) for a new access and refresh token; both old tokens stop working.",
            tags: ["user"],
            params: [
                .init("refreshToken", JSONSchema.string, required: true)
            ],
            result: "auth",
            JSONSchema.ref("AuthResult"),
            errors: [ErrorReason.invalidRefreshToken],
            writes: true,
            example: .init(params: ["refreshToken": "gt_q3N1b2X0m3pF7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2"], result: ContractExamples.auth)
        )
    }

    /// `user.putIdentity`: gives the calling pseudo user a login identity and password, in place: same
    /// userID, and the current token keeps working.
    public enum PutIdentity: RPCMethod {
        /// The same shape as `user.login`: one or more of username, email, phone, and a password.
        public typealias Params = Login.Params
        public typealias Result = UserProfile
        public static let name = "user.putIdentity"

        public static let access: AccessRequirement = .session
        public static let changesSession = true
        public static let contract = MethodContract(
            summary: "Gives the calling pseudo user a login identity and password in place: same userID, the token keeps working.",
            tags: ["user"],
            params: UserMethods.identityParams + [.init("password", JSONSchema.string, required: true)],
            result: "user",
            JSONSchema.ref("UserProfile"),
            errors: [ErrorReason.unauthorized, ErrorReason.identityAlreadySet, ErrorReason.userAlreadyExists, ErrorReason.invalidInputData],
            writes: true,
            example: .init(params: ["username": "alice", "password": "s3cret!"], result: ContractExamples.profile)
        )
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

        public static let access: AccessRequirement = .session
        public static let changesSession = true
        public static let contract = MethodContract(
            summary: "Changes the caller's password and revokes every token they hold; returns a new session, bound to the connection.",
            tags: ["user"],
            params: [
                .init("oldPassword", JSONSchema.string, required: true),
                .init("newPassword", JSONSchema.string, required: true),
            ],
            result: "auth",
            JSONSchema.ref("AuthResult"),
            errors: [ErrorReason.unauthorized, ErrorReason.invalidCredentials, ErrorReason.invalidInputData, ErrorReason.permissionDenied],
            writes: true,
            example: .init(params: ["oldPassword": "s3cret!", "newPassword": "n3w-s3cret"], result: ContractExamples.auth)
        )
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

        public static let access: AccessRequirement = .session
        public static let contract = MethodContract(
            summary: "A user's profile (the caller's own when userID is absent). Other users' profiles show only their public part.",
            tags: ["user"],
            params: [
                .init("userID", JSONSchema.string)
            ],
            result: "user",
            JSONSchema.ref("UserProfile"),
            errors: [ErrorReason.unauthorized, ErrorReason.userNotFound],
            example: .init(params: ["userID": "4f1c2e0a9b8d4c7e8f6a5b4c3d2e1f00"], result: ContractExamples.profile)
        )
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

        public static let access: AccessRequirement = .session
        public static let contract = MethodContract(
            summary:
                "Changes displayName, email, phone or custom fields (merged; a null field value removes it). The caller's own profile, or any as admin.",
            tags: ["user"],
            params: [
                .init("userID", JSONSchema.string),
                .init("displayName", JSONSchema.string),
                .init("email", JSONSchema.string),
                .init("phone", JSONSchema.string),
                .init("fields", JSONSchema.object, "Custom fields: at most 63 KB of JSON; names starting with '_' are dropped"),
            ],
            result: "user",
            JSONSchema.ref("UserProfile"),
            errors: [
                ErrorReason.unauthorized, ErrorReason.permissionDenied, ErrorReason.userNotFound, ErrorReason.userAlreadyExists,
                ErrorReason.invalidInputData,
            ],
            writes: true,
            example: .init(params: ["displayName": "Alice B."], result: ContractExamples.profile.merging(["displayName": "Alice B."]))
        )
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

        public static let access: AccessRequirement = .session
        public static let changesSession = true
        public static let contract = MethodContract(
            summary: "Deletes a user and every token they hold: the caller themself, or any user as admin.",
            tags: ["user"],
            params: [
                .init("userID", JSONSchema.string)
            ],
            result: "deleted",
            JSONSchema.object(required: ["userID", "deleted"], ["userID": JSONSchema.string, "deleted": JSONSchema.boolean]),
            errors: [ErrorReason.unauthorized, ErrorReason.permissionDenied, ErrorReason.userNotFound],
            writes: true,
            example: .init(
                params: ["userID": "4f1c2e0a9b8d4c7e8f6a5b4c3d2e1f00"],
                result: ["userID": "4f1c2e0a9b8d4c7e8f6a5b4c3d2e1f00", "deleted": true]
            )
        )
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

        public static let access: AccessRequirement = .session
        public static let contract = MethodContract(
            summary: "The groups a user is a member of (the caller's own when userID is absent); empty, not an error, when none.",
            tags: ["user", "group"],
            params: [
                .init("userID", JSONSchema.string)
            ],
            result: "groups",
            JSONSchema.object(required: ["groups"], ["groups": JSONSchema.array(of: JSONSchema.ref("GroupInfo"))]),
            errors: [ErrorReason.unauthorized],
            example: .init(params: ["userID": "4f1c2e0a9b8d4c7e8f6a5b4c3d2e1f00"], result: ["groups": [ContractExamples.group]])
        )
    }

    /// `user.ownerOfGroups`: the groups a user owns (always a subset of `user.memberOfGroups`).
    public enum OwnerOfGroups: RPCMethod {
        public typealias Params = Get.Params
        public typealias Result = MemberOfGroups.Result
        public static let name = "user.ownerOfGroups"
        public static var isExpensive: Bool { true }

        public static let access: AccessRequirement = .session
        public static let contract = MethodContract(
            summary: "The groups a user owns; always a subset of user.memberOfGroups.",
            tags: ["user", "group"],
            params: [
                .init("userID", JSONSchema.string)
            ],
            result: "groups",
            JSONSchema.object(required: ["groups"], ["groups": JSONSchema.array(of: JSONSchema.ref("GroupInfo"))]),
            errors: [ErrorReason.unauthorized],
            example: .init(params: ["userID": "4f1c2e0a9b8d4c7e8f6a5b4c3d2e1f00"], result: ["groups": [ContractExamples.group]])
        )
    }
}

extension UserMethods {
    /// The users area's methods, in the published contract (`protocol/openrpc.json`). A new method of the area is added here.
    public static let all: [any RPCMethod.Type] = [
        UserMethods.ChangePassword.self,
        UserMethods.Delete.self,
        UserMethods.Get.self,
        UserMethods.Login.self,
        UserMethods.MemberOfGroups.self,
        UserMethods.OwnerOfGroups.self,
        UserMethods.PutIdentity.self,
        UserMethods.Refresh.self,
        UserMethods.Register.self,
        UserMethods.RegisterPseudo.self,
        UserMethods.Update.self,
    ]
}

extension UserMethods {
    /// The login identity `user.register`, `user.login` and `user.putIdentity` take: one or more of these (login:
    /// exactly one), each unique among users.
    static let identityParams: [MethodContract.Param] = [
        .init("username", JSONSchema.string, "3-64 of [A-Za-z0-9._-], unique (case-insensitive)"),
        .init("email", JSONSchema.string, "Unique (case-insensitive)"),
        .init("phone", JSONSchema.string, "'+' and 4-20 digits, unique"),
    ]
}
