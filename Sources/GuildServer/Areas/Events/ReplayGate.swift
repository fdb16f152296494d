import Synchronization

/// Bounds how many replay pages (`events.subscribe` with `since`) are read at once, daemon-wide.
///
/// A replay reads the log a page at a time, and each page holds a database reader while it is read. Without a
/// bound, many subscriptions replaying at once (one connection may hold 1,024) would keep every reader busy,
/// and cheap reads on other connections would wait behind their pages. Replays wait their turn here instead:
/// the waiters are bounded by the subscriptions the daemon allows, and each turn is one page.
final class ReplayGate: Sendable {
    private struct State {
        var available: Int
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state: Mutex<State>

    /// A gate that lets `permits` page reads run at once.
    init(permits: Int) {
        self.state = Mutex(State(available: max(1, permits)))
    }

    /// Runs `body` once a permit is free, and gives it back afterwards.
    func withPermit<T>(_ body: () async throws -> T) async rethrows -> T {
        await self.acquire()
        defer { self.release() }
        return try await body()
    }

    private func acquire() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let granted = self.state.withLock { state in
                if state.available > 0 {
                    state.available -= 1
                    return true
                }
                state.waiters.append(continuation)
                return false
            }
            if granted { continuation.resume() }
        }
    }

    private func release() {
        let next = self.state.withLock { state -> CheckedContinuation<Void, Never>? in
            if state.waiters.isEmpty {
                state.available += 1
                return nil
            }
            return state.waiters.removeFirst()
        }
        next?.resume()
    }
}
