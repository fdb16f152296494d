/// The users and sessions area's records and queries, handed out as ``Transaction/users``.
///
/// Implementations translate storage failures: a taken login name, email address or phone number is
/// `GuildError.userAlreadyExists`; a missing user, where one is required, is `GuildError.userNotFound`.
public protocol UserRecords {
    /// Creates a user (with a password hash unless pseudo) and the tokens of its first session.
    func insertUser(_ user: User, passwordHash: String?, session: IssuedSession) throws
    /// The user with this login identity (exactly one part set) and their password hash.
    func credentials(for identity: LoginIdentity) throws -> (user: User, passwordHash: String?)?
    /// Stores a new session for a user; throws `userNotFound` when the user no longer exists.
    func insertSession(_ session: IssuedSession, userID: String, now: Int64) throws
    /// Consumes a refresh token: revokes its whole session and stores `session` in its place.
    /// Throws `invalidRefreshToken` when the token is unknown or already used.
    func rotateRefreshToken(hash: [UInt8], to session: IssuedSession, now: Int64) throws -> User
    /// The live session of an access token, or `nil` when unknown, revoked or expired.
    func resolveAccessToken(hash: [UInt8], now: Int64) throws -> ResolvedSession?
    /// Gives the pseudo user `userID` a login identity and password (`userAlreadyExists` when a part of the
    /// identity is taken); false, changing nothing, when no pseudo user has that id.
    func setIdentity(userID: String, identity: LoginIdentity, passwordHash: String, now: Int64) throws -> Bool
    /// A user's password hash (`nil` for pseudo users); throws `userNotFound`.
    func passwordHash(userID: String) throws -> String?
    /// Replaces a password hash, revokes every token of the user, and stores `session`.
    func replacePassword(userID: String, passwordHash: String, session: IssuedSession, now: Int64) throws
    /// A user by id.
    func user(id: String) throws -> User?
    /// Writes the fields of `user` that differ from `old` (display name, email, phone, fields) and its
    /// modification time.
    func saveUser(_ user: User, old: User) throws
    /// Sets the display name, email and phone that are given (nil leaves one as it is) and the modification time;
    /// returns the user as stored, or nil when no user has this id. What a profile change that needs nothing of the
    /// old row does: an engine whose statements are round trips writes and reads it in one (the default reads
    /// ``user(id:)``, then writes with ``saveUser(_:old:)``).
    func setProfile(id: String, displayName: String?, email: String?, phone: String?, modifiedAt: Int64) throws -> User?
    /// Deletes a user row and its tokens; returns whether it existed. Other areas' records of the user go
    /// first, in the same transaction (see `UserService.delete`).
    func deleteUserRecord(id: String) throws -> Bool
    /// Revokes the session an access token belongs to (its refresh token too).
    func revokeSession(accessTokenHash: [UInt8]) throws
}

extension UserRecords {
    /// ``user(id:)``, then ``saveUser(_:old:)``: what an engine whose reads are cheap calls does.
    public func setProfile(id: String, displayName: String?, email: String?, phone: String?, modifiedAt: Int64) throws -> User? {
        guard let old = try self.user(id: id) else { return nil }
        var user = old
        user.setProfile(displayName: displayName, email: email, phone: phone, modifiedAt: modifiedAt)
        try self.saveUser(user, old: old)
        return user
    }
}
