import GuildCore
import Testing

/// The engine-neutral parts of group commit: the queue's batches and drains, and each write's outcome.
struct GroupCommitTests {
    struct Closed: Error {}
    struct Own: Error {}
    struct Batch: Error {}

    @Test func theFirstCallerStartsTheDrainWhichTakesBatchesInOrderUntilEmpty() throws {
        let queue = GroupCommitQueue<Int>(maximumBatch: 2)
        #expect(try queue.append(1, closedError: Closed()))
        #expect(try !queue.append(2, closedError: Closed()))
        #expect(try !queue.append(3, closedError: Closed()))
        #expect(queue.nextBatch() == [1, 2])
        #expect(queue.nextBatch() == [3])
        #expect(queue.nextBatch() == nil)
        // The drain ended: the next caller starts another.
        #expect(try queue.append(4, closedError: Closed()))
        queue.close()
        #expect(throws: Closed.self) { try queue.append(5, closedError: Closed()) }
        #expect(queue.nextBatch() == [4])
    }

    @Test func anOutcomeIsTheOperationsOwnUnlessItsTransactionFailed() async throws {
        let committed = WriteOutcome<Int>()
        committed.ran(returning: 1)
        committed.settle(transactionError: nil)
        #expect(try await committed.value() == 1)

        // Awaited before it ran: the caller waits for the settlement.
        let waited = WriteOutcome<Int>()
        async let value = waited.value()
        try await Task.sleep(for: .milliseconds(10))
        waited.ran(returning: 2)
        waited.settle(transactionError: nil)
        #expect(try await value == 2)

        let failedTransaction = WriteOutcome<Int>()
        failedTransaction.ran(returning: 3)
        failedTransaction.settle(transactionError: Batch())
        await #expect(throws: Batch.self) { try await failedTransaction.value() }

        let ownFailure = WriteOutcome<Int>()
        ownFailure.ran(throwing: Own())
        ownFailure.settle(transactionError: Batch())
        await #expect(throws: Own.self) { try await ownFailure.value() }

        let neverRan = WriteOutcome<Int>()
        neverRan.settle(transactionError: nil)
        neverRan.settle(transactionError: Batch())  // settled once: later settlements change nothing
        await #expect(throws: CancellationError.self) { try await neverRan.value() }
    }
}
