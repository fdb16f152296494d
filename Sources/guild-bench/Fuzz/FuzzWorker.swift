import Foundation
import Glibc
import Synchronization

/// One fuzzing connection on its own thread: sends rounds from its ``FuzzGenerator``, reads (and discards)
/// replies so that guildd keeps reading, reconnects when guildd closes the connection or stops answering.
struct FuzzWorker: Sendable {
    struct Stats: Sendable {
        var rounds = 0
        var bytes = 0
        var replies = 0
        var reconnects = 0
        /// Replies carrying -32603 (an internal error: a bug, or a failure the protocol does not name).
        var internalErrors = 0

        mutating func add(_ other: Stats) {
            self.internalErrors += other.internalErrors
            self.rounds += other.rounds
            self.bytes += other.bytes
            self.replies += other.replies
            self.reconnects += other.reconnects
        }
    }

    /// Live totals over every worker, for progress lines.
    final class Totals: Sendable {
        let sent = Atomic<Int>(0)
    }

    static let totals = Totals()

    let index: Int
    let socketPath: String
    let generator: FuzzGenerator
    let log: SentLog
    let stop: StopFlag

    static let internalError = Array("\"code\":-32603".utf8)

    /// How often `needle` occurs in `bytes` (a read may split one occurrence: close enough for a tally).
    static func count(_ needle: [UInt8], in bytes: ArraySlice<UInt8>) -> Int {
        bytes.withUnsafeBytes { raw in
            needle.withUnsafeBytes { needle in
                var found = 0
                var from = 0
                while let position = RawRPC.find(needle, in: raw, from: from) {
                    found += 1
                    from = position + needle.count
                }
                return found
            }
        }
    }

    /// Blocking: fuzzes until `stop` is set.
    func run() -> Stats {
        var generator = self.generator
        var stats = Stats()
        var fd: Int32 = -1
        var outstanding = 0
        var buffer = [UInt8](repeating: 0, count: 256 * 1024)
        defer { if fd >= 0 { close(fd) } }

        /// Reads what is there (waiting up to `wait` ms for the first bytes); false when the connection is gone.
        func drain(wait: Int32) -> Bool {
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, wait) >= 0 else { return true }
            guard descriptor.revents != 0 else { return true }
            while true {
                let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, $0.count, Int32(MSG_DONTWAIT)) }
                if count < 0 { return errno == EAGAIN || errno == EINTR }
                if count == 0 { return false }
                let lines = buffer[0..<count].reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
                stats.internalErrors += Self.count(Self.internalError, in: buffer[0..<count])
                stats.replies += lines
                outstanding = max(0, outstanding - lines)
            }
        }

        while !self.stop.isSet {
            if fd < 0 {
                guard let connected = try? RawSocket.connect(self.socketPath) else {
                    usleep(50_000)
                    continue
                }
                fd = connected
                RawSocket.setTimeout(fd, seconds: 2)
                outstanding = 0
                if generator.coin(percent: 60) {
                    let line = generator.authenticate()
                    self.log.record(connection: self.index, bytes: line)
                    _ = try? line.withUnsafeBytes { try RawSocket.writeAll(fd, $0) }
                    outstanding += 1
                }
            }
            let round = generator.round()
            self.log.record(connection: self.index, bytes: round.bytes)
            stats.rounds += 1
            stats.bytes += round.bytes.count
            Self.totals.sent.add(1, ordering: .relaxed)
            do {
                try round.bytes.withUnsafeBytes { try RawSocket.writeAll(fd, $0) }
            } catch {
                // Closed, or not read for 2 s: start over.
                close(fd)
                fd = -1
                stats.reconnects += 1
                continue
            }
            outstanding += round.expectedReplies
            var open = drain(wait: 0)
            // Too much unanswered: wait for replies, up to 2 s without progress.
            var idleSince = monotonicNanos()
            while open, outstanding > 64, !self.stop.isSet {
                let before = stats.replies
                open = drain(wait: 100)
                if stats.replies != before { idleSince = monotonicNanos() }
                if monotonicNanos() - idleSince > 2_000_000_000 {
                    open = false
                }
            }
            if !open {
                close(fd)
                fd = -1
                stats.reconnects += 1
            }
        }
        return stats
    }
}
