/// A stored event as replay returns it.
public struct StoredEvent: Sendable {
    public var seq: Int64
    /// What the event is about.
    public var topic: EventTopic
    /// The kind, owned by the topic's area.
    public var kind: String
    /// `{"seq":...,...}`, exactly as subscribers receive it.
    public var json: [UInt8]

    /// Creates a stored event.
    public init(seq: Int64, topic: EventTopic, kind: String, json: [UInt8]) {
        self.seq = seq
        self.topic = topic
        self.kind = kind
        self.json = json
    }
}

/// Where a subscription starts: the log's head and oldest kept event, and the topics the user follows at
/// that head (for groups: the groups they are a member of), as each area's store side reports them.
public struct EventSnapshot: Sendable {
    /// The sequence number of the last committed event (0 when none yet).
    public var head: Int64
    /// The oldest event still kept (head + 1 when none is kept).
    public var oldest: Int64
    /// The topics the user followed at `head`.
    public var following: Set<EventTopic>

    /// Creates a snapshot.
    public init(head: Int64, oldest: Int64, following: Set<EventTopic>) {
        self.head = head
        self.oldest = oldest
        self.following = following
    }
}

/// The event log as subscriptions read it.
public protocol EventRepository: Sendable {
    /// The head, the oldest kept event, and the topics a user follows, read in one snapshot.
    func eventSnapshot(userID: String?) async throws -> EventSnapshot
    /// Events after `after` up to `through`, in order, at most `limit`: for a user, only those their areas'
    /// rules entitle them to (for groups: a member of the group at the time, or named); for nil, all.
    /// `installationID` is the installation the subscriber's connection is bound to (events addressed to
    /// installations, such as a command's result, replay only there).
    func replay(userID: String?, installationID: String?, after: Int64, through: Int64, limit: Int) async throws -> [StoredEvent]
    /// Drops at most `limit` events beyond the newest `keepCount` or older than `maxAgeMilliseconds`, the oldest
    /// first, in one transaction; returns how many.
    func pruneEvents(keepCount: Int64, maxAgeMilliseconds: Int64, now: Int64, limit: Int) async throws -> Int
    /// Delivers committed events to `sink`, in commit order, after each commit; a later sink replaces an earlier one.
    func onCommittedEvents(_ sink: @escaping @Sendable ([CommittedEvent]) -> Void)
}

extension EventRepository {
    /// Replay for a subscriber bound to no installation.
    public func replay(userID: String?, after: Int64, through: Int64, limit: Int) async throws -> [StoredEvent] {
        try await self.replay(userID: userID, installationID: nil, after: after, through: through, limit: limit)
    }

    /// Drops every event beyond the newest `keepCount` or older than `maxAgeMilliseconds`, in transactions of at
    /// most `batchSize` events, so that writes queued meanwhile go between batches: a minute of a busy log (twenty
    /// thousand events and their audience rows) deleted in one transaction held the writer long enough to lift
    /// that minute's p99 of every write (protocol/performance.md, 2026-11-29). After each full batch (one that
    /// may have left more behind) it awaits `pause` with how long that batch took, its wait for the writer
    /// included; the daemon sleeps there (``EventPruning/pause(after:resting:minimum:spread:)``). Returns how many.
    public func pruneEvents(
        keepCount: Int64,
        maxAgeMilliseconds: Int64,
        now: Int64,
        batchSize: Int = EventPruning.batchSize,
        pause: @Sendable (Duration) async throws -> Void = { _ in }
    ) async throws -> Int {
        try await EventPruning.inBatches(of: batchSize, pause: pause) { limit in
            try await self.pruneEvents(keepCount: keepCount, maxAgeMilliseconds: maxAgeMilliseconds, now: now, limit: limit)
        }
    }
}

/// The bounds ``EventRepository/pruneEvents(keepCount:maxAgeMilliseconds:now:limit:)`` applies, the same on every
/// engine: a negative count keeps none beyond the newest, an age beyond the clock's range drops nothing by age.
public enum EventPruning {
    /// How many of the newest events to keep (never negative) and the time before which events are dropped.
    public static func bounds(keepCount: Int64, maxAgeMilliseconds: Int64, now: Int64) -> (keepCount: Int64, olderThan: Int64) {
        let (olderThan, overflow) = now.subtractingReportingOverflow(max(0, maxAgeMilliseconds))
        return (max(0, keepCount), overflow ? Int64.min : olderThan)
    }

    /// How many events one transaction of ``EventRepository/pruneEvents(keepCount:maxAgeMilliseconds:now:batchSize:)``
    /// drops at most by default.
    public static let batchSize = 1_000

    /// A limit of at least one and small enough that a seq plus it cannot overflow.
    public static func clamped(limit: Int) -> Int { min(max(1, limit), 1 << 40) }

    /// How long the retention rests after a full batch that took `took`, when the round began `resting` ago (its
    /// batches and rests so far): four times as long, so that pruning takes at most a fifth of the writer's time, and for the
    /// round's first `spread`, at least `minimum`, so that a minute's twenty batches are spread over seconds
    /// instead of written back to back. Back to back, they wrote the WAL faster than the background checkpoint
    /// copied it back: the log grew from 8.6 to 17.3 MiB when the pruning began; paced, to 10.6 MiB
    /// (protocol/performance.md, 2026-11-30). Past `spread` the minimum no longer applies, so a log that grows
    /// faster than `minimum` a batch (4,000 events a second) is still pruned as fast as it grows.
    public static func pause(
        after took: Duration,
        resting elapsed: Duration,
        minimum: Duration = .milliseconds(250),
        spread: Duration = .seconds(30)
    ) -> Duration {
        elapsed < spread ? max(minimum, took * 4) : took * 4
    }

    /// Runs `batch` with `batchSize` (at least one) until it removes nothing; after each full batch, awaits
    /// `pause` with how long it took (a part batch goes straight on: little was left). Returns the total removed.
    public static func inBatches(
        of batchSize: Int,
        pause: @Sendable (Duration) async throws -> Void,
        batch: (Int) async throws -> Int
    ) async throws -> Int {
        let limit = max(1, batchSize)
        let clock = ContinuousClock()
        var total = 0
        while true {
            try Task.checkCancellation()
            let started = clock.now
            let removed = try await batch(limit)
            total += removed
            guard removed > 0 else { return total }
            if removed >= limit { try await pause(clock.now - started) }
        }
    }
}
