import GuildJSON

/// A user as the wire shows it. Secrets (password hashes, tokens) are never part of it.
///
/// Another user's profile shows only `userID`, `username`, `displayName`, `isPseudo` and `createdAt`;
/// the user themself and admins see everything.
public struct UserProfile: Codable, Hashable, Sendable {
    /// The stable user id, assigned at registration and kept when a pseudo user gets an identity.
    public var userID: String
    /// The login name, if any.
    public var username: String?
    /// The email address, if any.
    public var email: String?
    /// The phone number, if any.
    public var phone: String?
    /// A display name of at most 50 characters.
    public var displayName: String?
    /// Custom fields (at most 63 KB; names starting with `_` are dropped).
    public var fields: [String: JSONValue]?
    /// Whether the user is a pseudo user (no login identity yet).
    public var isPseudo: Bool
    /// Creation time, milliseconds since the Unix epoch.
    public var createdAt: Int64
    /// Last modification time, milliseconds since the Unix epoch.
    public var modifiedAt: Int64?

    /// Creates a profile.
    public init(
        userID: String,
        username: String? = nil,
        email: String? = nil,
        phone: String? = nil,
        displayName: String? = nil,
        fields: [String: JSONValue]? = nil,
        isPseudo: Bool,
        createdAt: Int64,
        modifiedAt: Int64? = nil
    ) {
        self.userID = userID
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

/// What registering or logging in returns: the user and a fresh session.
public struct AuthResult: Codable, Hashable, Sendable {
    /// The user.
    public var user: UserProfile
    /// The access token; keep it secret. The connection that obtained it is already bound to it.
    public var accessToken: String
    /// The single-use refresh token (absent for pseudo users).
    public var refreshToken: String?
    /// When the access token expires, milliseconds since the Unix epoch; absent when it never does.
    public var expiresAt: Int64?

    /// Creates a result.
    public init(user: UserProfile, accessToken: String, refreshToken: String?, expiresAt: Int64?) {
        self.user = user
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.expiresAt = expiresAt
    }
}

/// What `session.whoami` and `session.authenticate` return.
public struct SessionInfo: Codable, Hashable, Sendable {
    /// The connecting process, as the kernel reports it (`SO_PEERCRED`).
    public struct Peer: Codable, Hashable, Sendable {
        public var uid: UInt32
        public var gid: UInt32
        public var pid: Int32
        /// Creates peer credentials.
        public init(uid: UInt32, gid: UInt32, pid: Int32) {
            self.uid = uid
            self.gid = gid
            self.pid = pid
        }
    }

    /// The user the connection is bound to, if any.
    public var user: UserProfile?
    /// The thing the connection is bound to (with a thing's token), if any.
    public var thingID: String?
    /// The bound thing's vendorThingID.
    public var vendorThingID: String?
    /// When the bound token expires (ms since the epoch); absent when unbound or never.
    public var expiresAt: Int64?
    /// Whether the connection has admin rights (from its peer credentials).
    public var admin: Bool
    /// The connecting process.
    public var peer: Peer

    /// Creates session info.
    public init(user: UserProfile?, thingID: String? = nil, vendorThingID: String? = nil, expiresAt: Int64?, admin: Bool, peer: Peer) {
        self.user = user
        self.thingID = thingID
        self.vendorThingID = vendorThingID
        self.expiresAt = expiresAt
        self.admin = admin
        self.peer = peer
    }
}
