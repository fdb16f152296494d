import Synchronization

/// Wakes the schedule runner when a schedule is created or changed: it sleeps until the earliest due time it
/// knows, and a new trigger may be due sooner.
///
/// A poke while the runner is awake is kept, so the next ``wait(upTo:)`` returns at once: the runner reads the
/// due times again after each wait, and a change committed before that read is never slept through.
public final class ScheduleWake: Sendable {
    private struct State {
        var poked = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    public init() {}

    /// Wakes the runner (or makes its next wait return at once).
    public func poke() {
        let waiter = self.state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let waiter = state.waiter else {
                state.poked = true
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// Returns at a poke, after `duration`, or when the task is cancelled, whichever comes first.
    public func wait(upTo duration: Duration) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                try? await Task.sleep(for: duration)
                // Cancelled: the wait ended by a poke, and this one would be a spurious wake later.
                if !Task.isCancelled { self.poke() }
            }
            await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let now = self.state.withLock { state -> Bool in
                        if state.poked {
                            state.poked = false
                            return true
                        }
                        state.waiter = continuation
                        return false
                    }
                    if now { continuation.resume() }
                }
            } onCancel: {
                self.poke()
            }
            group.cancelAll()
        }
    }
}
