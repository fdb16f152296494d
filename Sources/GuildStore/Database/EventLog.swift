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
    private let sink = Mutex<(@Sendable ([CommittedEvent]) -> Void)?>(nil)

    func set(_ sink: @escaping @Sendable ([CommittedEvent]) -> Void) {
        self.sink.withLock { $0 = sink }
    }

    func publish(_ events: [CommittedEvent]) {
        guard !events.isEmpty, let sink = self.sink.withLock({ $0 }) else { return }
        sink(events)
    }
}
