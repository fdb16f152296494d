/// Durable storage of users and sessions. Each method is one atomic transaction; a method that changes state
/// returns only after that transaction is durably committed.
///
/// Implementations translate storage failures: a taken login name, email address or phone number is
/// `GuildError.userAlreadyExists`; a missing user is `GuildError.userNotFound`.
public protocol UserRepository: Sendable {
    /// Creates a user (with a password hash unless pseudo) and its first session.
    func insertUser(_ user: User, passwordHash: String?, session: IssuedSession) async throws
    /// The user with this login identity (exactly one part set) and their password hash.
    func credentials(for identity: LoginIdentity) async throws -> (user: User, passwordHash: String?)?
    /// Stores a new session for a user.
    func insertSession(_ session: IssuedSession, userID: String) async throws
    /// Consumes a refresh token: revokes its whole session and stores `session` in its place.
    /// Throws `invalidRefreshToken` when the token is unknown or already used.
    func rotateRefreshToken(hash: [UInt8], to session: IssuedSession, now: Int64) async throws -> User
    /// The live session of an access token, or `nil` when unknown, revoked or expired.
    func resolveAccessToken(hash: [UInt8], now: Int64) async throws -> ResolvedSession?
    /// Gives a pseudo user a login identity and password. Throws `identityAlreadySet` for other users.
    func setIdentity(userID: String, identity: LoginIdentity, passwordHash: String, now: Int64) async throws -> User
    /// A user's password hash (`nil` for pseudo users).
    func passwordHash(userID: String) async throws -> String?
    /// Replaces a password hash, revokes every token of the user, and stores `session`.
    func replacePassword(userID: String, passwordHash: String, session: IssuedSession, now: Int64) async throws
    /// A user by id.
    func user(id: String) async throws -> User?
    /// Reads, changes and writes a user in one transaction; `change` may throw to abort.
    func updateUser(
        id: String,
        now: Int64,
        _ change: @escaping @Sendable (inout User) throws -> Void
    ) async throws
        -> User
    /// Deletes a user and everything that belongs to them: tokens, and memberships (groups they owned
    /// become ownerless; see ``GroupService/removeDeletedUser(_:in:now:)``). Returns whether the user existed.
    func deleteUser(id: String, now: Int64) async throws -> Bool
    /// Revokes the session an access token belongs to (its refresh token too).
    func revokeSession(accessTokenHash: [UInt8]) async throws
}

/// Password hashing as the service needs it; the daemon runs it off the request threads.
public protocol PasswordHashing: Sendable {
    /// Hashes a password.
    func hash(_ password: String) async throws -> String
    /// Checks a password against a stored hash.
    func verify(_ password: String, against stored: String) async -> Bool
}

extension PasswordHasher: PasswordHashing {
    public func hash(_ password: String) async throws -> String {
        try self.makeHash(password)
    }

    public func verify(_ password: String, against stored: String) async -> Bool {
        self.check(password, against: stored)
    }
}
