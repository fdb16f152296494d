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
/// hold up the next group commit. Order is kept (the queue is FIFO). The queue is bounded: past
/// ``maximumBacklog`` commits waiting, the writer waits for the fan-out to catch up instead of buffering more.
final class EventPublisher: Sendable {
    /// The sink, boxed so reading it hands out a reference rather than re-wrapping the closure.
    private final class Sink: Sendable {
        let body: @Sendable ([CommittedEvent]) -> Void
        init(_ body: @escaping @Sendable ([CommittedEvent]) -> Void) { self.body = body }
    }

    /// Commits whose events may wait for the fan-out before the writer is held back.
    static let maximumBacklog = 64

    private let sink = Mutex<Sink?>(nil)
    private let queue = DispatchQueue(label: "guild.events.fan-out")
    private let backlog = Atomic<Int>(0)

    func set(_ sink: @escaping @Sendable ([CommittedEvent]) -> Void) {
        let box = Sink(sink)
        self.sink.withLock { $0 = box }
    }

    func publish(_ events: [CommittedEvent]) {
        guard !events.isEmpty, let sink = self.sink.withLock({ $0 }) else { return }
        if self.backlog.add(1, ordering: .relaxed).newValue > Self.maximumBacklog {
            self.queue.sync { sink.body(events) }
            self.backlog.subtract(1, ordering: .relaxed)
        } else {
            self.queue.async {
                sink.body(events)
                self.backlog.subtract(1, ordering: .relaxed)
            }
        }
    }

    /// Returns once every event published so far has been handed to the sink.
    func waitUntilDelivered() {
        self.queue.sync {}
    }
}
