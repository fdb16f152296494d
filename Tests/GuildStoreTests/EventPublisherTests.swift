import Dispatch
import Foundation
import GuildCore
import Synchronization
import Testing

@testable import GuildStore

/// The hand-off from the group-commit writer to the fan-out: commit order kept, commits that pile up while the
/// fan-out is busy handed on together, and the writer held back once too many events wait.
@Suite struct EventPublisherTests {
    /// A sink that records the batches it is handed and can be made to wait inside a call.
    final class RecordingSink: Sendable {
        private let batches = Mutex<[[Int64]]>([])
        /// Signalled when a call starts.
        let entered = DispatchSemaphore(value: 0)
        /// Waited on by every call while `holding` is set.
        let release = DispatchSemaphore(value: 0)
        private let holding = Atomic<Bool>(false)

        func hold() { self.holding.store(true, ordering: .sequentiallyConsistent) }

        func letGo() {
            self.holding.store(false, ordering: .sequentiallyConsistent)
            self.release.signal()
        }

        func receive(_ events: [CommittedEvent]) {
            self.batches.withLock { $0.append(events.map(\.seq)) }
            self.entered.signal()
            if self.holding.load(ordering: .sequentiallyConsistent) { self.release.wait() }
        }

        var received: [[Int64]] { self.batches.withLock { $0 } }
    }

    final class Counter: @unchecked Sendable {
        private var next: Int64 = 0
        func events(_ count: Int, jsonBytes: Int = 0) -> [CommittedEvent] {
            (0..<count).map { _ in
                self.next += 1
                let event = GroupEvent(kind: .groupInfoChanged, groupID: "g", actor: nil, time: 1)
                return CommittedEvent(seq: self.next, event: event, json: [UInt8](repeating: 0x20, count: jsonBytes))
            }
        }
    }

    /// A publisher whose fan-out is inside its first batch (`first` events), held there until `sink.letGo()`.
    func busyPublisher(
        first: Int,
        maximumWaiting: Int,
        maximumBatch: Int = EventPublisher.maximumBatchEvents,
        maximumBatchBytes: Int = EventPublisher.maximumBatchBytes
    ) -> (EventPublisher, RecordingSink, Counter) {
        let publisher = EventPublisher(maximumWaiting: maximumWaiting, maximumBatch: maximumBatch, maximumBatchBytes: maximumBatchBytes)
        let sink = RecordingSink()
        publisher.set { sink.receive($0) }
        let counter = Counter()
        sink.hold()
        publisher.publish(counter.events(first))
        sink.entered.wait()
        return (publisher, sink, counter)
    }

    @Test func commitsThatPileUpWhileTheFanOutIsBusyGoOutTogetherInCommitOrder() {
        let (publisher, sink, counter) = self.busyPublisher(first: 2, maximumWaiting: 1_000)
        // The fan-out is inside its first batch: these three commits wait, and go out as one batch.
        publisher.publish(counter.events(1))
        publisher.publish(counter.events(3))
        publisher.publish(counter.events(1))
        sink.letGo()
        publisher.waitUntilDelivered()
        #expect(sink.received == [[1, 2], [3, 4, 5, 6, 7]])

        // Keeping up, each commit is its own batch.
        publisher.publish(counter.events(1))
        publisher.waitUntilDelivered()
        publisher.publish(counter.events(2))
        publisher.waitUntilDelivered()
        #expect(sink.received.suffix(2) == [[8], [9, 10]])
    }

    @Test func aLongBacklogGoesOutInBatchesOfTheMaximum() {
        let (publisher, sink, counter) = self.busyPublisher(first: 1, maximumWaiting: 1_000, maximumBatch: 3)
        for _ in 0..<4 { publisher.publish(counter.events(2)) }
        sink.letGo()
        publisher.waitUntilDelivered()
        #expect(sink.received == [[1], [2, 3, 4], [5, 6, 7], [8, 9]])
    }

    @Test func largeEventsGoOutInBatchesOfAtMostTheByteBound() {
        // Each event's JSON here is 100 bytes: a batch ends at the event that reaches 250 bytes.
        let (publisher, sink, counter) = self.busyPublisher(first: 1, maximumWaiting: 1_000, maximumBatchBytes: 250)
        for _ in 0..<7 { publisher.publish(counter.events(1, jsonBytes: 100)) }
        sink.letGo()
        publisher.waitUntilDelivered()
        #expect(sink.received == [[1], [2, 3, 4], [5, 6, 7], [8]])
    }

    @Test func theWriterIsHeldBackOnceMoreEventsWaitThanTheBound() async throws {
        let (publisher, sink, counter) = self.busyPublisher(first: 1, maximumWaiting: 4)
        publisher.publish(counter.events(4))  // 4 waiting: at the bound, not past it
        let returned = Atomic<Bool>(false)
        let writer = Thread {
            publisher.publish(counter.events(1))  // 5 waiting: past the bound
            returned.store(true, ordering: .sequentiallyConsistent)
        }
        writer.start()
        try await Task.sleep(for: .milliseconds(200))
        let returnedEarly = returned.load(ordering: .sequentiallyConsistent)
        #expect(!returnedEarly, "publish returned with 5 events waiting for a stuck fan-out")
        sink.letGo()
        let deadline = ContinuousClock.now + .seconds(60)
        while !returned.load(ordering: .sequentiallyConsistent), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        let returnedAtLast = returned.load(ordering: .sequentiallyConsistent)
        #expect(returnedAtLast)
        // Nothing was dropped or reordered; by the time the held-back call returned, its events were handed on.
        #expect(sink.received == [[1], [2, 3, 4, 5, 6]])
    }
}
