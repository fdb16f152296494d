import GuildClient

/// guildd's running totals at the end of a soak minute, read from `system.metrics`: what the writer did that can
/// hold up every write behind it. A minute's figures are the differences from the minute before, so a slow
/// minute's p99 can be put beside the slow commits, checkpoints and pruning it had.
struct SoakDaemonCounters: Sendable {
    /// Commits of the group-commit writer, and those that took more than ``slowCommitBound`` (their transaction
    /// and WAL fsync).
    var commits: Double
    var slowCommits: Double
    /// The writer's own checkpoints at the WAL's hard limit (RESTART, whether it rewound the log or a reader held
    /// it), and the seconds they held the writer.
    var writerCheckpoints: Double
    var writerCheckpointSeconds: Double
    /// Checkpoints on the checkpointer's own connection (the writer goes on meanwhile).
    var passiveCheckpoints: Double
    /// Events the retention deleted.
    var prunedEvents: Double

    /// The commit duration above which a commit counts as slow: a bucket of guildd's histograms.
    static let slowCommitBound = "0.01"

    init(metrics text: String) {
        let samples = MetricsText.samples(text)
        let commit = "guild_store_commit_duration_seconds"
        self.commits = samples[commit + "_count"] ?? 0
        self.slowCommits = self.commits - (samples[commit + "_bucket{le=\"\(Self.slowCommitBound)\"}"] ?? self.commits)
        let checkpoints = "guild_wal_checkpoints_total"
        self.writerCheckpoints = (samples[checkpoints + "{mode=\"restart\"}"] ?? 0) + (samples[checkpoints + "{mode=\"busy\"}"] ?? 0)
        self.writerCheckpointSeconds = samples["guild_wal_writer_checkpoint_duration_seconds_sum"] ?? 0
        self.passiveCheckpoints = samples[checkpoints + "{mode=\"passive\"}"] ?? 0
        self.prunedEvents = samples["guild_events_pruned_total"] ?? 0
    }

    /// What happened between `earlier` and these totals (the totals themselves without it). A restarted daemon
    /// starts its totals again: a negative difference is taken as everything since the restart.
    func since(_ earlier: SoakDaemonCounters?) -> SoakDaemonCounters {
        guard let earlier else { return self }
        func delta(_ path: KeyPath<SoakDaemonCounters, Double>) -> Double {
            let difference = self[keyPath: path] - earlier[keyPath: path]
            return difference < 0 ? self[keyPath: path] : difference
        }
        var minute = self
        minute.commits = delta(\.commits)
        minute.slowCommits = delta(\.slowCommits)
        minute.writerCheckpoints = delta(\.writerCheckpoints)
        minute.writerCheckpointSeconds = delta(\.writerCheckpointSeconds)
        minute.passiveCheckpoints = delta(\.passiveCheckpoints)
        minute.prunedEvents = delta(\.prunedEvents)
        return minute
    }
}
