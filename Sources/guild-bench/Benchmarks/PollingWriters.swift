import Glibc
import GuildHarness

/// Writers driven from one thread that polls them all, as an independent load generator would: each
/// connection has one request in flight and sends the next as soon as its reply is in, until the deadline
/// (or until `limit` requests were sent); every reply is checked.
enum PollingWriters {
    /// Replies per second. `next(index, counter)` gives connection `index`'s next request line (with its
    /// `\n`) and bytes its reply must contain; `counter` counts up from `start`.
    static func run(
        _ connections: [LineConnection],
        duration: Double,
        counter start: Int,
        limit: Int = .max,
        next: (_ index: Int, _ counter: Int) -> (request: [UInt8], expected: [UInt8])
    ) throws -> Double {
        for connection in connections { connection.setNonBlocking() }
        var descriptors = connections.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
        var expected = [[UInt8]](repeating: [], count: connections.count)
        var counter = start
        var sent = 0
        func send(_ index: Int) throws {
            counter += 1
            sent += 1
            let (request, reply) = next(index, counter)
            expected[index] = reply
            try connections[index].send(request)
        }
        let begin = monotonicNanos()
        let deadline = duration.isFinite ? begin + UInt64(duration * 1e9) : UInt64.max
        for index in connections.indices where sent < limit { try send(index) }
        var outstanding = sent
        var count = 0
        while outstanding > 0 {
            let ready = poll(&descriptors, nfds_t(descriptors.count), 10_000)
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { throw DaemonError(ready == 0 ? "no reply within 10 s" : "poll failed: errno \(errno)") }
            let now = monotonicNanos()
            for index in descriptors.indices where descriptors[index].revents != 0 {
                var replies = 0
                var unexpected: String?
                let open = try connections[index].drain { line in
                    replies += 1
                    if !RawRPC.contains(line, expected[index]) { unexpected = RawRPC.preview(line) }
                }
                if let unexpected { throw DaemonError("a writer's call replied \(unexpected)") }
                guard open else { throw DaemonError("guildd closed a writer's connection") }
                guard replies <= 1 else { throw DaemonError("\(replies) replies to one request") }
                if replies == 1 {
                    count += 1
                    outstanding -= 1
                    if now < deadline, sent < limit {
                        try send(index)
                        outstanding += 1
                    }
                }
            }
        }
        return Double(count) / (Double(monotonicNanos() - begin) / 1e9)
    }
}
