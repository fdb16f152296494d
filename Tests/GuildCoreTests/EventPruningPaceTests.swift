import GuildCore
import Synchronization
import Testing

/// How the retention paces its batches: a rest after each full batch, none after a part batch or the last.
struct EventPruningPaceTests {
    /// The rest is four times the batch's own time, and never shorter than the minimum in the round's first
    /// 30 s; after them, only four times the batch, so a log growing faster than the minimum allows is kept up with.
    @Test func theRestIsFourTimesTheBatchAndAtLeastTheMinimumEarlyInTheRound() {
        #expect(EventPruning.pause(after: .milliseconds(10), resting: .zero) == .milliseconds(250))
        #expect(EventPruning.pause(after: .milliseconds(100), resting: .seconds(29)) == .milliseconds(400))
        #expect(EventPruning.pause(after: .milliseconds(10), resting: .seconds(30)) == .milliseconds(40))
        #expect(EventPruning.pause(after: .milliseconds(100), resting: .seconds(90)) == .milliseconds(400))
        #expect(EventPruning.pause(after: .zero, resting: .zero, minimum: .milliseconds(5)) == .milliseconds(5))
        #expect(EventPruning.pause(after: .seconds(1), resting: .zero, minimum: .zero) == .seconds(4))
    }

    /// 2,500 rows in batches of 1,000: three batches and a last empty one; a rest after each of the two full
    /// batches only, each given a batch's time (not negative), and the total is every row.
    @Test func restsFollowFullBatchesOnly() async throws {
        let left = Mutex(2_500)
        let batches = Mutex<[Int]>([])
        let rests = Mutex<[Duration]>([])
        let total = try await EventPruning.inBatches(of: 1_000, pause: { took in rests.withLock { $0.append(took) } }) { limit in
            let removed = left.withLock { left in
                let removed = min(left, limit)
                left -= removed
                return removed
            }
            batches.withLock { $0.append(removed) }
            return removed
        }
        #expect(total == 2_500)
        #expect(batches.withLock { $0 } == [1_000, 1_000, 500, 0])
        #expect(rests.withLock { $0.count } == 2)
        #expect(rests.withLock { $0.allSatisfy { $0 >= .zero } })
    }

    /// A batch size below one is one, and a rest that throws (the daemon's sleep, cancelled at shutdown)
    /// ends the pruning with that error and no batch after it.
    @Test func aCancelledRestStopsThePruning() async throws {
        struct Stopped: Error {}
        let calls = Mutex<[Int]>([])
        await #expect(throws: Stopped.self) {
            _ = try await EventPruning.inBatches(of: 0, pause: { _ in throw Stopped() }) { limit in
                calls.withLock { $0.append(limit) }
                return limit
            }
        }
        #expect(calls.withLock { $0 } == [1])
    }
}
