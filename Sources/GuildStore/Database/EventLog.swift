import Dispatch
import GuildCore
import Synchronization

/// The events one write operation appended, kept until its transaction commits (and dropped if its
/// savepoint rolls back).
final class EventLog: @unchecked Sendable {
    // @unchecked: used only inside the one write operation that owns it, on the writer's queue.
    var events: [CommittedEvent] = []
    /// Records the operation changed (``Transaction/changed(_:)``): after the commit, the store's hooks let
    /// caches drop them.
    var changed: Set<RecordKey> = []
}

/// Where committed events go: the server's fan-out registers here. Called in commit order, after the commit.
///
/// The sink runs on one serial queue of its own, so fanning a commit's events out to many subscribers does not
/// hold up the next group commit. Order is kept: committed events wait in one FIFO list, and the fan-out takes
/// everything waiting each time it comes back for more, in commit order, in batches of up to
/// ``maximumBatchEvents`` events or ``maximumBatchBytes`` of their JSON. While it keeps up that is one commit at a time; when it falls behind, the commits that
/// piled up meanwhile go out together, so each subscriber is reached (and its connection written) once for many
/// of them rather than once per commit.
///
/// The list is bounded: past ``maximumWaitingEvents`` events waiting, the writer waits for the fan-out to take
/// them instead of buffering more. The bound is the old one's worst case (64 commits of 256 operations, one event
/// each), now counted in events, so commits of a few operations each no longer stop the writer long before the
/// memory the bound is there for is used.
final class EventPublisher: Sendable {
    /// The sink, boxed so reading it hands out a reference rather than re-wrapping the closure.
    private final class Sink: Sendable {
        let body: @Sendable ([CommittedEvent]) -> Void
        init(_ body: @escaping @Sendable ([CommittedEvent]) -> Void) { self.body = body }
    }

    private struct Waiting {
        /// Committed events not yet handed to the sink, in commit order.
        var events: [CommittedEvent] = []
        /// Whether the fan-out queue has a turn scheduled or running that will take them.
        var scheduled = false
    }

    /// Events that may wait for the fan-out before the writer is held back.
    static let maximumWaitingEvents = 64 * 256
    /// The most events handed to the sink at once: enough to reach each subscriber once for many commits, few
    /// enough that no subscriber's connection is handed more at once than its limits allow (10,000 notifications
    /// and 4 MiB by default) while it is keeping up.
    static let maximumBatchEvents = 1_024
    /// The most event JSON bytes handed to the sink at once (a batch ends at the event that reaches it; one event
    /// always goes), for the same reason: a thousand large events (objects with big bodies) stay apart.
    static let maximumBatchBytes = 1 << 20

    private let sink = Mutex<Sink?>(nil)
    private let queue = DispatchQueue(label: "guild.events.fan-out")
    private let waiting = Mutex(Waiting())
    private let maximumWaiting: Int
    private let maximumBatch: Int
    private let maximumBatchBytes: Int

    init(
        maximumWaiting: Int = EventPublisher.maximumWaitingEvents,
        maximumBatch: Int = EventPublisher.maximumBatchEvents,
        maximumBatchBytes: Int = EventPublisher.maximumBatchBytes
    ) {
        self.maximumWaiting = maximumWaiting
        self.maximumBatch = maximumBatch
        self.maximumBatchBytes = maximumBatchBytes
    }

    func set(_ sink: @escaping @Sendable ([CommittedEvent]) -> Void) {
        let box = Sink(sink)
        self.sink.withLock { $0 = box }
    }

    func publish(_ events: [CommittedEvent]) {
        guard !events.isEmpty, let sink = self.sink.withLock({ $0 }) else { return }
        let (schedule, full) = self.waiting.withLock { waiting in
            waiting.events.append(contentsOf: events)
            defer { waiting.scheduled = true }
            return (!waiting.scheduled, waiting.events.count > self.maximumWaiting)
        }
        if schedule { self.queue.async { self.handOn(to: sink) } }
        // Held back: returns once the turn under way has handed on everything waiting (this commit's events too).
        if full { self.queue.sync {} }
    }

    /// On the queue: hands the sink everything waiting, batch after batch, until nothing is.
    private func handOn(to sink: Sink) {
        while true {
            let events: [CommittedEvent]? = self.waiting.withLock { waiting in
                guard !waiting.events.isEmpty else {
                    waiting.scheduled = false
                    return nil
                }
                defer { waiting.events = [] }
                return waiting.events
            }
            guard let events else { return }
            var start = events.startIndex
            while start < events.endIndex {
                var end = start
                var bytes = 0
                while end < events.endIndex, end - start < self.maximumBatch, bytes < self.maximumBatchBytes {
                    bytes += events[end].json.count
                    end += 1
                }
                sink.body(start == events.startIndex && end == events.endIndex ? events : Array(events[start..<end]))
                start = end
            }
        }
    }

    /// Returns once every event published so far has been handed to the sink.
    func waitUntilDelivered() {
        self.queue.sync {}
    }
}
