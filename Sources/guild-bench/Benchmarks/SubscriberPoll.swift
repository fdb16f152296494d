import Glibc

/// The read loop of the subscriber benchmarks (`fan-out`, `avchatroom`): one thread polls every subscriber
/// connection and hands each line on without decoding it, `events.event` lines with their `seq` and event
/// `time` already scanned.
enum SubscriberPoll {
    /// An `events.event` line.
    struct Event {
        /// Which connection it came on.
        var index: Int
        var seq: Int64
        /// The event's `time` (commit-time clock, ms since the epoch).
        var time: Int64
        /// When the read that brought it returned (ms since the epoch).
        var receivedAt: Double
        var line: UnsafeRawBufferPointer
    }

    /// Polls until `done` says so after a round. `done` gets the monotonic time of the last round that brought an
    /// event (the start while none has). `afterRound` runs after each round that read something; `closed` makes the
    /// error for a connection guildd closed.
    static func run(
        _ connections: [LineConnection],
        event: (Event) -> Void,
        other: (_ index: Int, _ line: UnsafeRawBufferPointer) -> Void,
        afterRound: () throws -> Void = {},
        closed: (_ index: Int) -> any Error,
        done: (_ lastEvent: UInt64) -> Bool
    ) throws {
        var descriptors = connections.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
        var lastEvent = monotonicNanos()
        try FanOut.eventPrefix.withUnsafeBytes { prefix in
            try FanOut.seqKey.withUnsafeBytes { seqKey in
                try FanOut.timeKey.withUnsafeBytes { timeKey in
                    while true {
                        let ready = poll(&descriptors, nfds_t(descriptors.count), 20)
                        if ready < 0 {
                            if errno == EINTR { continue }
                            throw RawSocket.Failure("poll")
                        }
                        if ready > 0 {
                            var events = false
                            for index in descriptors.indices where descriptors[index].revents != 0 {
                                let now = wallClockMilliseconds()
                                let open = try connections[index].drain { line in
                                    guard line.count > prefix.count, memcmp(line.baseAddress!, prefix.baseAddress!, prefix.count) == 0,
                                        let seq = RawRPC.integer(after: seqKey, in: line, from: prefix.count),
                                        let time = RawRPC.integer(after: timeKey, in: line, from: seq.end)
                                    else {
                                        other(index, line)
                                        return
                                    }
                                    events = true
                                    event(Event(index: index, seq: seq.value, time: time.value, receivedAt: now, line: line))
                                }
                                if !open { throw closed(index) }
                            }
                            try afterRound()
                            if events { lastEvent = monotonicNanos() }
                        }
                        if done(lastEvent) { return }
                    }
                }
            }
        }
    }
}
