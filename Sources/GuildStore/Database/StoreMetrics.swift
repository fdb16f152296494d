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

    /// Checkpoints of the write-ahead log (``WALCheckpointer``) by mode: `passive` on the checkpointer's own
    /// connection; the writer's own at the hard limit, `restart` when it rewound the log and `busy` when a reader
    /// still held it. The writer's own stop every write behind them; `guild-bench soak` counts them per minute.
    static let passiveCheckpoints = Counter(label: checkpointsLabel, dimensions: [("mode", "passive")])
    static let restartCheckpoints = Counter(label: checkpointsLabel, dimensions: [("mode", "restart")])
    static let busyCheckpoints = Counter(label: checkpointsLabel, dimensions: [("mode", "busy")])
    static let checkpointsLabel = "guild_wal_checkpoints_total"
    /// How long each of the writer's own checkpoints held it.
    static let writerCheckpointDuration = Timer(label: "guild_wal_writer_checkpoint_duration_seconds")

    /// A monotonic timestamp in nanoseconds.
    static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    /// Records one commit of `operations` writes and `events` events that started at `started` (``now()``).
    static func committed(operations: Int, events: Int, started: UInt64) {
        Self.commitDuration.recordNanoseconds(Int64(truncatingIfNeeded: Self.now() &- started))
        Self.commitOperations.record(operations)
        if events > 0 { Self.eventsAppended.increment(by: events) }
    }

    /// Records one of the writer's own checkpoints that started at `started` (``now()``).
    static func writerCheckpointed(rewound: Bool, started: UInt64) {
        Self.writerCheckpointDuration.recordNanoseconds(Int64(truncatingIfNeeded: Self.now() &- started))
        (rewound ? Self.restartCheckpoints : Self.busyCheckpoints).increment()
    }

    /// Records a checkpoint started on the checkpointer's own connection.
    static func backgroundCheckpointStarted() {
        Self.passiveCheckpoints.increment()
    }
}
