import Foundation
import GuildCore
import GuildStore
import Synchronization

/// A store in a fresh temporary directory, removed when the test ends.
struct TemporaryStore {
    let directory: URL
    let store: SQLiteStore

    init() throws {
        self.directory = FileManager.default.temporaryDirectory.appendingPathComponent("guild-store-\(UUID().uuidString)")
        self.store = try SQLiteStore(configuration: .init(path: self.directory.appendingPathComponent("db/guild.sqlite").path))
    }

    func remove() {
        try? self.store.close()
        try? FileManager.default.removeItem(at: self.directory)
    }
}

/// A clock the test moves by hand.
final class TestClock: Sendable {
    private let milliseconds = Mutex<Int64>(1_800_000_000_000)
    var now: Int64 { self.milliseconds.withLock { $0 } }
    func advance(seconds: Int64) { self.milliseconds.withLock { $0 += seconds * 1000 } }
}

func makeService(_ store: SQLiteStore, clock: TestClock = TestClock(), lifetime: Int64? = 3600) async throws -> UserService {
    try await UserService(repository: store, hasher: PasswordHasher(logN: 4), accessTokenLifetime: lifetime, now: { clock.now })
}

func caller(_ session: IssuedSession, _ user: User, admin: Bool = false) -> Caller {
    Caller(
        peer: PeerCredentials(uid: 1000, gid: 1000, pid: 1),
        isAdmin: admin,
        session: ResolvedSession(user: user, tokenHash: session.accessToken.hash, expiresAt: session.expiresAt)
    )
}
