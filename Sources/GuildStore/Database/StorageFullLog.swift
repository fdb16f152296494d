import GRDB
import GuildCore
import Logging
import Synchronization

/// Turns SQLite's "disk full" into ``GuildCore/GuildError/Code/storageFull`` and logs it one short line per burst.
///
/// A full file system fails every write until space returns, so logging each failure (with its statement)
/// would flood the log and fill the disk further. The first failure is logged; the next ones within
/// ``interval`` only count, and the next line says how many were not logged. The first commit after a burst
/// logs that writes succeed again.
final class StorageFullLog: Sendable {
    private struct State {
        var lastLogged: ContinuousClock.Instant?
        var suppressed = 0
        var full = false
        var linesLogged = 0
    }

    /// The least time between two log lines of one burst.
    let interval: Duration
    private let logger: Logger
    private let state = Mutex(State())
    /// Whether the last write failed for lack of space (read without the lock on every commit).
    private let full = Atomic<Bool>(false)

    init(logger: Logger = Logger(label: "guild.store"), interval: Duration = .seconds(10)) {
        self.logger = logger
        self.interval = interval
    }

    /// How many lines about a full disk were logged so far (for tests).
    var linesLogged: Int { self.state.withLock { $0.linesLogged } }

    /// `error` as callers should see it: `storageFull` for SQLite's `SQLITE_FULL` (logged here, rate-limited),
    /// anything else unchanged.
    func translate(_ error: any Error) -> any Error {
        guard let database = error as? DatabaseError, database.resultCode == .SQLITE_FULL else { return error }
        self.record()
        return GuildError(.storageFull, "the database's file system is full: nothing was written")
    }

    /// Notes a write that succeeded, ending a burst of failures.
    func recovered() {
        guard self.full.load(ordering: .relaxed) else { return }
        let ended = self.state.withLock { state in
            guard state.full else { return nil as Int? }
            state.full = false
            self.full.store(false, ordering: .relaxed)
            defer { state.suppressed = 0 }
            return state.suppressed
        }
        if let ended {
            self.logger.notice("database writes succeed again", metadata: ["db.unlogged_failures": "\(ended)"])
        }
    }

    private func record() {
        let now = ContinuousClock.now
        let report: Int? = self.state.withLock { state in
            state.full = true
            self.full.store(true, ordering: .relaxed)
            if let last = state.lastLogged, now - last < self.interval {
                state.suppressed += 1
                return nil
            }
            state.lastLogged = now
            state.linesLogged += 1
            defer { state.suppressed = 0 }
            return state.suppressed
        }
        if let report {
            self.logger.error(
                "database file system full: writes fail with STORAGE_FULL (at most one line per \(self.interval))",
                metadata: ["db.unlogged_failures": "\(report)"]
            )
        }
    }
}
