import Foundation
import GuildJSON
import Synchronization

/// The user and session rules of Kii Cloud: registration, pseudo users, login, single-use refresh tokens,
/// identity upgrade, password change, profile reads and updates, deletion.
public struct UserService: Sendable {
    /// Where users live.
    public var store: any Store
    /// How passwords are hashed.
    public var hasher: any PasswordHashing
    /// How long an access token lives, in seconds; `nil` for ever. Kii's default is 2147483647 s.
    public var accessTokenLifetime: Int64?
    /// The current time in milliseconds since the Unix epoch.
    public var now: @Sendable () -> Int64
    /// Per-user counters that tell bound sessions when to revalidate.
    public let generations = SessionGenerations()
    /// What other areas do to their records of a user being deleted, in the deletion's transaction (the groups
    /// area ends the user's memberships), before the user's own row goes.
    public var deletionSteps: [UserDeletionStep]

    /// A hash of a random password, verified when a login names an unknown user, so that the answer takes
    /// as long as for a known one. Made on first use, so start-up stays fast.
    private let decoyHash = DecoyHash()

    /// Creates the service.
    public init(
        store: any Store,
        hasher: any PasswordHashing,
        accessTokenLifetime: Int64? = 2_147_483_647,
        deletionSteps: [UserDeletionStep] = [],
        now: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970 * 1000) }
    ) async throws {
        self.store = store
        self.deletionSteps = deletionSteps
        self.hasher = hasher
        self.accessTokenLifetime = accessTokenLifetime
        self.now = now
    }

    private func decoy() async -> String {
        if let hash = self.decoyHash.value.withLock({ $0 }) { return hash }
        let hash = (try? await self.hasher.hash(Token.generate().text)) ?? ""
        self.decoyHash.value.withLock { $0 = $0 ?? hash }
        return hash
    }

    // MARK: - Registration and login

    /// Registers a user with a login identity and password, and opens their first session.
    public func register(
        identity: LoginIdentity,
        password: String,
        displayName: String?,
        fields: [String: JSONValue]?
    ) async throws -> (User, IssuedSession) {
        guard !identity.isEmpty else {
            throw GuildError.invalidInput("one of username, email or phone is required", field: "username")
        }
        try UserRules.validate(identity)
        try UserRules.validatePassword(password)
        if let displayName { try UserRules.validateDisplayName(displayName) }
        let sanitized = try UserRules.sanitizeFields(fields ?? [:])
        let hash = try await self.hasher.hash(password)
        let now = self.now()
        let user = User(
            id: Self.newUserID(),
            username: identity.username,
            email: identity.email,
            phone: identity.phone,
            displayName: displayName,
            fields: sanitized,
            isPseudo: false,
            createdAt: now,
            modifiedAt: now
        )
        let session = self.issueSession(pseudo: false, now: now)
        try await self.store.write { try $0.users.insertUser(user, passwordHash: hash, session: session) }
        return (user, session)
    }

    /// Registers a pseudo user: no identity, no password, a token that never expires.
    public func registerPseudo(displayName: String?, fields: [String: JSONValue]?) async throws -> (User, IssuedSession) {
        if let displayName { try UserRules.validateDisplayName(displayName) }
        let sanitized = try UserRules.sanitizeFields(fields ?? [:])
        let now = self.now()
        let user = User(
            id: Self.newUserID(),
            displayName: displayName,
            fields: sanitized,
            isPseudo: true,
            createdAt: now,
            modifiedAt: now
        )
        let session = self.issueSession(pseudo: true, now: now)
        try await self.store.write { try $0.users.insertUser(user, passwordHash: nil, session: session) }
        return (user, session)
    }

    /// Logs in with exactly one of login name, email address or phone number.
    public func login(identity: LoginIdentity, password: String) async throws -> (User, IssuedSession) {
        let given = [identity.username, identity.email, identity.phone].compactMap { $0 }
        guard given.count == 1 else {
            throw GuildError.invalidInput("give exactly one of username, email or phone", field: "username")
        }
        let found = try await self.store.read { try $0.users.credentials(for: identity) }
        guard let found, let stored = found.passwordHash else {
            _ = await self.hasher.verify(password, against: await self.decoy())
            throw GuildError(.invalidCredentials, "wrong login name or password")
        }
        guard await self.hasher.verify(password, against: stored) else {
            throw GuildError(.invalidCredentials, "wrong login name or password")
        }
        let session = self.issueSession(pseudo: false, now: self.now())
        do {
            let now = self.now()
            try await self.store.write { try $0.users.insertSession(session, userID: found.user.id, now: now) }
        } catch let error as GuildError where error.code == .userNotFound {
            // Deleted between the password check and the session: as if it had never existed.
            throw GuildError(.invalidCredentials, "wrong login name or password")
        }
        return (found.user, session)
    }

    /// Exchanges a refresh token (once) for a new session; the old access and refresh tokens stop working.
    public func refresh(refreshToken: String) async throws -> (User, IssuedSession) {
        let now = self.now()
        let session = self.issueSession(pseudo: false, now: now)
        let hash = Token.hash(of: refreshToken)
        let user = try await self.store.write { try $0.users.rotateRefreshToken(hash: hash, to: session, now: now) }
        self.generations.bump(user.id)
        return (user, session)
    }

    /// Resolves an access token to its live session, or throws `invalidToken`.
    public func resolve(accessToken: String) async throws -> ResolvedSession {
        let hash = Token.hash(of: accessToken)
        let now = self.now()
        guard let session = try await self.store.read({ try $0.users.resolveAccessToken(hash: hash, now: now) }) else {
            throw GuildError(.invalidToken, "the access token is unknown, revoked or expired")
        }
        return session
    }

    /// Re-checks a bound session that was validated at `generation`: without touching storage while nothing
    /// changed for its user and it has not expired; throws `invalidToken` if it was revoked or expired.
    /// Returns the live session and the generation it was checked at.
    public func revalidate(_ session: ResolvedSession, checkedAt generation: UInt64) async throws -> (ResolvedSession, UInt64) {
        if self.isCurrent(session, checkedAt: generation) { return (session, generation) }
        let current = self.generations.current(session.user.id)
        return (try await self.revalidate(session), current)
    }

    /// Whether a session checked at `generation` needs no new check: its user's sessions have not changed
    /// since, and it has not expired.
    public func isCurrent(_ session: ResolvedSession, checkedAt generation: UInt64) -> Bool {
        self.generations.current(session.user.id) == generation && (session.expiresAt.map { $0 > self.now() } ?? true)
    }

    /// Re-checks a bound session; throws `invalidToken` if it was revoked or expired since it was bound.
    public func revalidate(_ session: ResolvedSession) async throws -> ResolvedSession {
        let now = self.now()
        guard let live = try await self.store.read({ try $0.users.resolveAccessToken(hash: session.tokenHash, now: now) }) else {
            throw GuildError(.invalidToken, "the session's access token was revoked or has expired")
        }
        return live
    }

    // MARK: - Identity and password

    /// Gives the calling pseudo user a login identity and password, keeping its id and tokens.
    public func putIdentity(caller: Caller, identity: LoginIdentity, password: String) async throws -> User {
        let userID = try caller.requireUserID()
        guard !identity.isEmpty else {
            throw GuildError.invalidInput("one of username, email or phone is required", field: "username")
        }
        try UserRules.validate(identity)
        try UserRules.validatePassword(password)
        let hash = try await self.hasher.hash(password)
        let now = self.now()
        let user = try await self.store.write { tx in
            let found = { () throws -> User in
                guard let user = try tx.users.user(id: userID) else {
                    throw GuildError(.userNotFound, "no user with id \(userID)", field: "userID")
                }
                return user
            }
            guard try tx.users.setIdentity(userID: userID, identity: identity, passwordHash: hash, now: now) else {
                _ = try found()
                throw GuildError(.identityAlreadySet, "the user already has a login identity")
            }
            return try found()
        }
        self.generations.bump(userID)
        return user
    }

    /// Changes the caller's password, revoking every token they hold, and opens a new session.
    public func changePassword(
        caller: Caller,
        oldPassword: String,
        newPassword: String
    ) async throws
        -> (User, IssuedSession)
    {
        let userID = try caller.requireUserID()
        try UserRules.validatePassword(newPassword, field: "newPassword")
        guard let stored = try await self.store.read({ try $0.users.passwordHash(userID: userID) }) else {
            throw GuildError(.permissionDenied, "a pseudo user has no password: call user.putIdentity first")
        }
        guard await self.hasher.verify(oldPassword, against: stored) else {
            throw GuildError(.invalidCredentials, "the old password is wrong", field: "oldPassword")
        }
        let hash = try await self.hasher.hash(newPassword)
        let now = self.now()
        let session = self.issueSession(pseudo: false, now: now)
        let changed = try await self.store.write { tx in
            try tx.users.replacePassword(userID: userID, passwordHash: hash, session: session, now: now)
            return try tx.users.user(id: userID)
        }
        self.generations.bump(userID)
        guard let user = changed else {
            throw GuildError(.userNotFound, "the user was deleted")
        }
        return (user, session)
    }

    // MARK: - Profiles

    /// A user's profile, and whether the caller may see all of it (the user themself or an admin).
    public func get(caller: Caller, userID: String?) async throws -> (user: User, full: Bool) {
        let target: String
        if let userID {
            guard caller.isAdmin || caller.session != nil else {
                throw GuildError(.unauthorized, "this call needs a session or admin rights")
            }
            target = userID
        } else {
            target = try caller.requireUserID()
        }
        guard let user = try await self.store.read({ try $0.users.user(id: target) }) else {
            throw GuildError(.userNotFound, "no user with id \(target)", field: "userID")
        }
        return (user, caller.isAdmin || caller.session?.user.id == target)
    }

    /// Updates a profile: the caller's own, or any as admin.
    public func update(caller: Caller, userID: String?, patch: UserPatch) async throws -> User {
        let target = try caller.target(userID)
        if let displayName = patch.displayName { try UserRules.validateDisplayName(displayName) }
        if let email = patch.email { try UserRules.validateEmail(email) }
        if let phone = patch.phone { try UserRules.validatePhone(phone) }
        if let fields = patch.fields { _ = try UserRules.sanitizeFields(fields.filter { $0.value != .null }) }
        let now = self.now()
        let user = try await self.store.write { tx in
            let stored: User?
            if let fields = patch.fields {
                stored = try tx.users.user(id: target).map { old in
                    var user = old
                    user.setProfile(displayName: patch.displayName, email: patch.email, phone: patch.phone, modifiedAt: now)
                    user.fields = try UserRules.merge(fields, into: user.fields)
                    try tx.users.saveUser(user, old: old)
                    return user
                }
            } else {
                // Nothing of the old row is needed: written and read back in one step (one statement on PostgreSQL).
                stored = try tx.users.setProfile(
                    id: target,
                    displayName: patch.displayName,
                    email: patch.email,
                    phone: patch.phone,
                    modifiedAt: now
                )
            }
            guard let stored else { throw GuildError(.userNotFound, "no user with id \(target)", field: "userID") }
            return stored
        }
        // No bump: a profile change leaves every token valid (readers of the profile fetch it fresh).
        return user
    }

    /// Deletes a user: the caller themself, or anyone as admin.
    public func delete(caller: Caller, userID: String?) async throws -> String {
        let target = try caller.target(userID)
        let now = self.now()
        let steps = self.deletionSteps
        let existed = try await self.store.write { tx in
            // Found by exact bytes first (a key lookup in SQL would cut an id at a NUL).
            guard try tx.users.user(id: target) != nil else { return false }
            for step in steps { try step(target, tx, now) }
            return try tx.users.deleteUserRecord(id: target)
        }
        guard existed else {
            throw GuildError(.userNotFound, "no user with id \(target)", field: "userID")
        }
        self.generations.bump(target)
        return target
    }

    /// Revokes the caller's session.
    public func logout(caller: Caller) async throws {
        guard let session = caller.session else {
            throw GuildError(.unauthorized, "the connection has no session")
        }
        try await self.store.write { try $0.users.revokeSession(accessTokenHash: session.tokenHash) }
        self.generations.bump(session.user.id)
    }

    // MARK: - Helpers

    private func issueSession(pseudo: Bool, now: Int64) -> IssuedSession {
        let expiresAt: Int64? =
            if pseudo {
                nil
            } else {
                self.accessTokenLifetime.map { now.addingReportingOverflow($0 &* 1000).partialValue }
            }
        return IssuedSession(
            accessToken: .generate(),
            refreshToken: pseudo ? nil : .generate(),
            expiresAt: expiresAt,
            family: RandomID.uuid()
        )
    }

    private static func newUserID() -> String {
        RandomID.hex()
    }
}

/// What an area does to its records of a user being deleted, inside the deletion's transaction.
public typealias UserDeletionStep = @Sendable (_ userID: String, _ transaction: any Transaction, _ now: Int64) throws -> Void

/// The decoy hash, shared by copies of the service.
private final class DecoyHash: Sendable {
    let value = Mutex<String?>(nil)
}
