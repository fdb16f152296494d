import Synchronization

/// The end of a soak for its subscribers: once the writers have stopped, each subscriber reads on until it has
/// the log's head as it was then, so that "every subscriber saw every seq once" is checked to the end.
final class SoakCatchUp: Sendable {
    private let target = Atomic<Int64>(-1)
    private let deadline = Atomic<UInt64>(UInt64.max)

    /// Subscribers read up to `seq`, for at most `seconds`.
    func set(head seq: Int64, seconds: Double) {
        self.deadline.store(monotonicNanos() + UInt64(seconds * 1e9), ordering: .relaxed)
        self.target.store(seq, ordering: .relaxed)
    }

    /// Whether a subscriber at `lastSeq` should go on after `stop` (the head not known yet counts as yes).
    func shouldContinue(lastSeq: Int64) -> Bool {
        guard monotonicNanos() < self.deadline.load(ordering: .relaxed) else { return false }
        let target = self.target.load(ordering: .relaxed)
        return target < 0 || lastSeq < target
    }
}
