/// How much of a thing's state history is kept (`--state-history-count`, `--state-history-days`): each upload
/// drops the thing's states beyond the newest `count` and those whose timestamp is more than `days` old. The
/// latest state is always kept.
public struct StateHistoryLimits: Sendable, Hashable {
    /// The most states kept per thing (at least 1).
    public var count: Int
    /// The oldest state kept, in days before the upload (at least 1).
    public var days: Int

    /// The default: 1,000 states (10 MB at the 10 KB state limit) for at most 30 days.
    public static let standard = StateHistoryLimits(count: 1_000, days: 30)

    /// Limits of at least one state and one day (and at most a million days, so the age in ms cannot overflow).
    public init(count: Int, days: Int) {
        self.count = max(1, count)
        self.days = min(max(1, days), 1_000_000)
    }

    /// Past this many states per thing (the default), uploads keep the states' minute rollups (``StateRollup``)
    /// and grouped history reads them; up to it, grouped history reads the states themselves (at most this many,
    /// as a page of the history does), and uploads keep no rollups, which cost an upload that prunes a state
    /// about half its rate (16 things uploading at once: 6,900 -> 3,400/s, protocol/performance.md, 2026-11-30).
    public static let rollupThreshold = 1_000

    /// Whether uploads keep the minute rollups: more than ``rollupThreshold`` states per thing.
    public var keepsRollups: Bool { self.count > Self.rollupThreshold }

    /// `days` in ms.
    public var maximumAgeMilliseconds: Int64 { Int64(self.days) * 86_400_000 }
}
