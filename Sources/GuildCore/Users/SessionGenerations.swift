import Synchronization

/// A counter per user, bumped after every committed change that can invalidate a bound session (logout,
/// refresh, password change, identity change, deletion). A connection that validated its
/// session at generation G needs no database read while the user's generation is still G; all changes go
/// through this daemon, so the counter is exact.
public final class SessionGenerations: Sendable {
    private let generations = Mutex<[String: UInt64]>([:])

    /// Creates an empty set of counters.
    public init() {}

    /// The user's current generation.
    public func current(_ userID: String) -> UInt64 {
        self.generations.withLock { $0[userID] ?? 0 }
    }

    /// Marks the user's bound sessions for revalidation. Call after the change committed.
    public func bump(_ userID: String) {
        self.generations.withLock { $0[userID, default: 0] += 1 }
    }
}
