import Glibc

/// A point on the monotonic clock some seconds from now.
struct Deadline {
    private let nanos: UInt64

    init(seconds: Double) {
        self.nanos = Self.now() + UInt64(max(0, seconds) * 1e9)
    }

    var hasPassed: Bool { Self.now() >= self.nanos }

    static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}
