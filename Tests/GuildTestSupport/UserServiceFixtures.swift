import GuildCore
import GuildStore

/// A user service on `store` with a cheap scrypt cost, reading time from `clock`.
public func makeService(_ store: SQLiteStore, clock: TestClock = TestClock(), lifetime: Int64? = 3600) async throws -> UserService {
    try await UserService(
        store: store,
        hasher: PasswordHasher(logN: 4),
        accessTokenLifetime: lifetime,
        deletionSteps: [GroupService.removeDeletedUser, ObjectService.removeDeletedUser, ThingService.removeDeletedUser],
        now: { clock.now }
    )
}

/// The caller of a session `session` of `user`, as a local peer with uid 1000 (an admin when `admin`).
public func caller(_ session: IssuedSession, _ user: User, admin: Bool = false) -> Caller {
    Caller(
        peer: PeerCredentials(uid: 1000, gid: 1000, pid: 1),
        isAdmin: admin,
        session: ResolvedSession(user: user, tokenHash: session.accessToken.hash, expiresAt: session.expiresAt)
    )
}
