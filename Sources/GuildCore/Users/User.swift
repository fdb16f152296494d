import GuildJSON

/// A user account (Kii Cloud semantics): a pseudo user has no login identity until it gets one.
public struct User: Sendable, Hashable {
    /// The stable id.
    public var id: String
    /// The login name (unique, compared case-insensitively).
    public var username: String?
    /// The email address (unique, compared case-insensitively).
    public var email: String?
    /// The phone number (unique).
    public var phone: String?
    /// The display name.
    public var displayName: String?
    /// Custom fields; names never start with `_`.
    public var fields: [String: JSONValue]
    /// Whether the user has no login identity yet.
    public var isPseudo: Bool
    /// Creation time, milliseconds since the Unix epoch.
    public var createdAt: Int64
    /// Last modification time, milliseconds since the Unix epoch.
    public var modifiedAt: Int64

    /// Creates a user.
    public init(
        id: String,
        username: String? = nil,
        email: String? = nil,
        phone: String? = nil,
        displayName: String? = nil,
        fields: [String: JSONValue] = [:],
        isPseudo: Bool,
        createdAt: Int64,
        modifiedAt: Int64
    ) {
        self.id = id
        self.username = username
        self.email = email
        self.phone = phone
        self.displayName = displayName
        self.fields = fields
        self.isPseudo = isPseudo
        self.createdAt = createdAt
        self.modifiedAt = modifiedAt
    }
}

/// A login identity: one or more of login name, email address and phone number.
public struct LoginIdentity: Sendable, Hashable {
    public var username: String?
    public var email: String?
    public var phone: String?

    /// Creates an identity.
    public init(username: String? = nil, email: String? = nil, phone: String? = nil) {
        self.username = username
        self.email = email
        self.phone = phone
    }

    /// Whether no part is given.
    public var isEmpty: Bool { self.username == nil && self.email == nil && self.phone == nil }
}

/// A change to a user's profile; `nil` members are left alone.
public struct UserPatch: Sendable, Hashable {
    public var displayName: String?
    public var email: String?
    public var phone: String?
    /// Fields to merge: a `.null` value removes that field.
    public var fields: [String: JSONValue]?

    /// Creates a patch.
    public init(displayName: String? = nil, email: String? = nil, phone: String? = nil, fields: [String: JSONValue]? = nil) {
        self.displayName = displayName
        self.email = email
        self.phone = phone
        self.fields = fields
    }
}

extension User {
    /// Sets the display name, email and phone that are given (nil leaves one as it is) and the modification time.
    mutating func setProfile(displayName: String?, email: String?, phone: String?, modifiedAt: Int64) {
        if let displayName { self.displayName = displayName }
        if let email { self.email = email }
        if let phone { self.phone = phone }
        self.modifiedAt = modifiedAt
    }
}
