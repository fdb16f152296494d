import Foundation
import GuildHarness
import GuildJSON
import GuildProtocol
import Synchronization

/// What `guild-bench soak` measures minute by minute: every call's kind, latency and error code, guildd's
/// resident memory, open descriptors and database size at the end of each minute, and the machine's CPU time in it.
final class SoakRecorder: Sendable {
    /// The kinds of call, in the order the table shows them.
    enum Kind: String, CaseIterable, Sendable {
        /// `schedule` is a trigger's due time to its event's arrival, not a call. `floor` is not guildd's: a
        /// durable single-row UPDATE in the bench's own SQLite database every 20 ms (WAL, synchronous=FULL), what
        /// the machine's disk and CPUs did to a plain commit in the same minute.
        case message, read, object, query, command, login, refresh, guildctl, schedule, floor

        /// Whether it is a call to guildd (or its firing of a schedule), which the per-minute targets judge.
        var isDaemons: Bool { self != .floor }
    }

    /// One minute of the run.
    struct Minute: Sendable {
        /// Seconds of each kind of call that succeeded or failed with an error reply.
        var latencies: [Kind: [Double]] = [:]
        /// Error replies by code.
        var errors: [Int: Int] = [:]
        /// Calls whose connection or process failed (no reply at all).
        var failures = 0
        var rssBytes: Int?
        /// What SQLite held on guildd's heap then (`guild_database_heap_bytes`).
        var databaseHeapBytes: Int?
        var descriptors: Int?
        var databaseBytes: Int?
        var walBytes: Int?
        /// guildd's running totals at the minute's end (``SoakDaemonCounters``).
        var counters: SoakDaemonCounters?
        /// What the machine's CPUs did in the minute, and the cores guildd used.
        var machine: MachineCPU.Share?

        /// Calls to guildd (the floor's commits are not).
        var requests: Int { self.latencies.filter { $0.key.isDaemons }.values.reduce(0) { $0 + $1.count } }

        /// The `p`-th percentile of a kind's latencies, in seconds.
        func percentile(_ kind: Kind, _ p: Double) -> Double {
            Stats.percentile(self.latencies[kind] ?? [], p)
        }
    }

    private let started = monotonicNanos()
    private let minutes = Mutex<[Minute]>([])
    /// Error replies with a code or reason `protocol/errors.md` does not list, and the first of them.
    private let undocumented = Mutex<(count: Int, first: String?)>((0, nil))

    /// The minute of the run that is going on now (0 for the first).
    var currentMinute: Int { Int((monotonicNanos() - self.started) / 60_000_000_000) }

    /// Records one call that got a reply (`error` nil: a result).
    func record(_ kind: Kind, seconds: Double, error: RPCError?) {
        let minute = self.currentMinute
        if let error, !Self.isDocumented(error) {
            self.undocumented.withLock { state in
                state.count += 1
                if state.first == nil { state.first = "\(kind.rawValue): \(error)" }
            }
        }
        self.withMinute(minute) { bucket in
            bucket.latencies[kind, default: []].append(seconds)
            if let error { bucket.errors[error.code.rawValue, default: 0] += 1 }
        }
    }

    /// Records a call whose connection (or guildctl process) failed before a reply came.
    func recordFailure() {
        self.withMinute(self.currentMinute) { $0.failures += 1 }
    }

    /// Records guildd's resources for `minute`, read at its end.
    func sample(
        minute: Int,
        pid: Int32,
        databasePath: String,
        databaseHeapBytes: Int?,
        counters: SoakDaemonCounters?,
        machine: MachineCPU.Share?
    ) {
        let rss = try? MemoryStatus.read(pid: pid).rssBytes
        let descriptors = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count
        func size(_ path: String) -> Int? {
            (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int
        }
        self.withMinute(minute) { bucket in
            bucket.rssBytes = rss
            bucket.databaseHeapBytes = databaseHeapBytes
            bucket.descriptors = descriptors
            bucket.databaseBytes = size(databasePath)
            bucket.walBytes = size(databasePath + "-wal") ?? 0
            bucket.counters = counters
            bucket.machine = machine
        }
    }

    /// Every minute recorded so far.
    var recorded: [Minute] { self.minutes.withLock { $0 } }

    /// Error replies outside the documented table: how many, and the first.
    var undocumentedErrors: (count: Int, first: String?) { self.undocumented.withLock { $0 } }

    private func withMinute(_ minute: Int, _ body: (inout Minute) -> Void) {
        self.minutes.withLock { minutes in
            while minutes.count <= minute { minutes.append(Minute()) }
            body(&minutes[minute])
        }
    }

    /// Whether `protocol/errors.md` lists the error's code with its `data.reason`.
    static func isDocumented(_ error: RPCError) -> Bool {
        guard let entry = ErrorReason.catalog.first(where: { $0.code == error.code }) else { return false }
        guard case .object(let data)? = error.data, case .string(let reason)? = data["reason"] else { return false }
        return entry.reasons.contains(reason)
    }
}
