import CoreMetrics
import GuildCore

/// Trigger firings skipped past the bounds on what triggers send (``GuildCore/TriggerSkip``), in
/// `system.metrics`: `guild_trigger_firings_skipped_total` per reason (`pendingCommands`, `firingRate`, `storageQuota`), counted
/// once the upload that skipped them is committed. Made on first use, after the daemon bootstrapped its backend.
enum TriggerMetrics {
    private static let skipped = Dictionary(
        uniqueKeysWithValues: TriggerSkip.Reason.allCases.map { reason in
            (reason, Counter(label: "guild_trigger_firings_skipped_total", dimensions: [("reason", reason.rawValue)]))
        }
    )

    /// Counts an upload's skipped firings.
    static func skipped(_ skip: TriggerSkip) {
        Self.skipped[skip.reason]?.increment(by: skip.triggerIDs.count)
    }
}
