import CoreMetrics
import Dispatch

/// The group commit's instruments (swift-metrics; guildd's backend is Prometheus): how many operations each
/// commit held, how long the commit took (its transaction and the WAL fsync that makes it durable), and the
/// events appended. Made on first use, after the daemon bootstrapped its backend.
enum StoreMetrics {
    /// The commit-duration histogram's name (guildd sets its buckets).
    static let commitLabel = "guild_store_commit_duration_seconds"
    /// The commit-size histogram's name (guildd sets its buckets).
    static let batchLabel = "guild_store_commit_operations"

    static let commitDuration = Timer(label: commitLabel)
    static let commitOperations = Recorder(label: batchLabel, aggregate: true)
    static let eventsAppended = Counter(label: "guild_events_appended_total")

    /// A monotonic timestamp in nanoseconds.
    static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    /// Records one commit of `operations` writes and `events` events that started at `started` (``now()``).
    static func committed(operations: Int, events: Int, started: UInt64) {
        Self.commitDuration.recordNanoseconds(Int64(truncatingIfNeeded: Self.now() &- started))
        Self.commitOperations.record(operations)
        if events > 0 { Self.eventsAppended.increment(by: events) }
    }
}
