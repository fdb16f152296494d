import Synchronization

/// The queue of a group-commit writer, the same for every engine: callers append their operations; whichever
/// finds the writer idle starts a drain, which takes batches of at most `maximumBatch` until the queue is
/// empty. There is no background task to own or to stop.
public final class GroupCommitQueue<Operation: Sendable>: Sendable {
    private struct State {
        var queue: [Operation] = []
        var draining = false
        var closed = false
    }

    private let state = Mutex(State())
    /// The most operations one transaction takes, so no batch makes its callers wait too long.
    public let maximumBatch: Int

    /// Creates an empty queue.
    public init(maximumBatch: Int) {
        self.maximumBatch = maximumBatch
    }

    /// Queues `operation`; true when the caller must start a drain (the writer was idle). Throws `closedError`
    /// once the queue is closed.
    public func append(_ operation: Operation, closedError: @autoclosure () -> any Error) throws -> Bool {
        try self.state.withLock { state in
            guard !state.closed else { throw closedError() }
            state.queue.append(operation)
            if state.draining { return false }
            state.draining = true
            return true
        }
    }

    /// The drain's next batch, oldest first; nil when the queue is empty, which ends the drain.
    public func nextBatch() -> [Operation]? {
        self.state.withLock { state in
            if state.queue.isEmpty {
                state.draining = false
                return nil
            }
            let count = min(state.queue.count, self.maximumBatch)
            let batch = Array(state.queue.prefix(count))
            state.queue.removeFirst(count)
            return batch
        }
    }

    /// Operations queued and not yet taken into a batch.
    public var waiting: Int { self.state.withLock { $0.queue.count } }

    /// Refuses operations from now on.
    public func close() {
        self.state.withLock { $0.closed = true }
    }
}
