import GuildCore
import Synchronization

/// The events one write operation appended, kept until its transaction commits (and dropped if its
/// savepoint rolls back).
final class EventLog: @unchecked Sendable {
    // @unchecked: used only inside the one write operation that owns it, on the writer's queue.
    var events: [CommittedEvent] = []
}

/// Where committed events go: the server's fan-out registers here. Called in commit order, after the commit.
final class EventPublisher: Sendable {
    /// The sink, boxed so reading it hands out a reference rather than re-wrapping the closure.
    private final class Sink: Sendable {
        let body: @Sendable ([CommittedEvent]) -> Void
        init(_ body: @escaping @Sendable ([CommittedEvent]) -> Void) { self.body = body }
    }

    private let sink = Mutex<Sink?>(nil)

    func set(_ sink: @escaping @Sendable ([CommittedEvent]) -> Void) {
        let box = Sink(sink)
        self.sink.withLock { $0 = box }
    }

    func publish(_ events: [CommittedEvent]) {
        guard !events.isEmpty, let sink = self.sink.withLock({ $0 }) else { return }
        sink.body(events)
    }
}
