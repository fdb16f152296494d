import Synchronization

/// A clock the test moves by hand, in milliseconds since 1970 (it starts in January 2027).
public final class TestClock: Sendable {
    private let milliseconds = Mutex<Int64>(1_800_000_000_000)

    /// A clock at its starting time.
    public init() {}

    /// A clock at `start` (ms since 1970).
    public init(at start: Int64) {
        self.milliseconds.withLock { $0 = start }
    }

    /// Puts the clock at `time` (ms since 1970), forward or back.
    public func set(_ time: Int64) { self.milliseconds.withLock { $0 = time } }

    /// Milliseconds now.
    public var now: Int64 { self.milliseconds.withLock { $0 } }

    /// Moves the clock forward.
    public func advance(seconds: Int64) { self.milliseconds.withLock { $0 += seconds * 1000 } }

    /// Moves the clock forward by `milliseconds`.
    public func advance(milliseconds: Int64) { self.milliseconds.withLock { $0 += milliseconds } }
}
