import Synchronization

/// A counter per user, bumped after every committed change that can invalidate a bound session (logout,
/// refresh, password change, identity change, deletion). A connection that validated its
/// session at generation G needs no database read while the user's generation is still G; all changes go
/// through this daemon, so the counter is exact.
public final class SessionGenerations: Sendable {
    private struct Counters {
        var perUser: [String: UInt64] = [:]
        var epoch: UInt64 = 0
    }

    private let counters = Mutex(Counters())

    /// Creates an empty set of counters.
    public init() {}

    /// The user's current generation.
    public func current(_ userID: String) -> UInt64 {
        self.counters.withLock { $0.perUser[userID] ?? 0 }
    }

    /// Bumped with every user's generation: a session check that read storage while the epoch moved may have
    /// read what a change committed meanwhile undid (see ``generation(of:checkedSince:)``).
    public var epoch: UInt64 {
        self.counters.withLock { $0.epoch }
    }

    /// The generation to record for a session of `userID` checked against storage by a read that began at
    /// `epoch`: the current one, or, when some session changed since the read began, one that never becomes
    /// current, so that the next call checks the session again.
    public func generation(of userID: String, checkedSince epoch: UInt64) -> UInt64 {
        self.counters.withLock { $0.epoch == epoch ? $0.perUser[userID] ?? 0 : UInt64.max }
    }

    /// Marks the user's bound sessions for revalidation. Call after the change committed.
    public func bump(_ userID: String) {
        self.counters.withLock { counters in
            counters.perUser[userID, default: 0] += 1
            counters.epoch &+= 1
        }
    }
}
