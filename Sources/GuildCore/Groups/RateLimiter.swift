import Synchronization

/// At most `limit` events per key in any window of `windowMilliseconds` (a sliding log of recent times).
/// In memory: a rate limit is not state a restart must keep.
final class RateLimiter: Sendable {
    private let limit: Int
    private let window: Int64
    private let recent = Mutex<[String: [Int64]]>([:])

    init(limit: Int, windowMilliseconds: Int64) {
        self.limit = limit
        self.window = windowMilliseconds
    }

    /// Records an event for `key` at `now` if the limit allows it; false (and nothing recorded) if not.
    func allow(_ key: String, now: Int64) -> Bool {
        self.recent.withLock { recent in
            if recent.count > 10_000 { recent = recent.filter { $0.value.last.map { now - $0 < self.window } ?? false } }
            var times = recent[key, default: []].filter { now - $0 < self.window }
            guard times.count < self.limit else {
                recent[key] = times
                return false
            }
            times.append(now)
            recent[key] = times
            return true
        }
    }
}
