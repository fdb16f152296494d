import Foundation
import Glibc
import GuildHarness
import Synchronization

/// Connection churn against one server: `concurrency` threads each connect, send one `system.ping`, read the
/// reply line and close, until `count` connections were made. Connection `i` (in the order they were started)
/// records when it started and when its reply arrived; each time another `slice` connections have finished, the
/// server's resident memory is read, so figures can be given per slice of the run.
final class ChurnLoad: @unchecked Sendable {
    /// One slice of the run: `count` connections in start order.
    struct Slice: Sendable {
        var index: Int
        var count: Int
        /// Connect-to-reply latency, in microseconds.
        var p50: Double
        var p99: Double
        /// Connections finished per second over the slice.
        var rate: Double
        /// The server's VmRSS once the slice's last connection finished (nil without a server pid).
        var rssBytes: Int?
        /// The anonymous part of it (RssAnon: heap and stacks, without the mapped executable).
        var anonymousBytes: Int?
    }

    /// What a run gave.
    struct Outcome: Sendable {
        var slices: [Slice]
        /// Connections that failed (connect, write or read), and the first failure.
        var failures: Int
        var firstFailure: String?
        var seconds: Double

        var rate: Double { Double(self.slices.reduce(0) { $0 + $1.count }) / self.seconds }
    }

    private let path: String
    private let count: Int
    private let concurrency: Int
    private let sliceSize: Int
    private let serverPID: Int32?
    private let started: UnsafeMutableBufferPointer<UInt64>
    private let finished: UnsafeMutableBufferPointer<UInt64>
    private let next = Atomic<Int>(0)
    private let done = Atomic<Int>(0)
    private let failureCount = Atomic<Int>(0)
    private let firstFailure = Mutex<String?>(nil)
    /// Per slice: when its last connection finished (the `done` counter reached its end) and the server's memory then.
    private let boundaries = Mutex<[Int: (nanos: UInt64, memory: MemoryStatus?)]>([:])

    init(path: String, count: Int, concurrency: Int, slice: Int, serverPID: Int32?) {
        self.path = path
        self.count = count
        self.concurrency = concurrency
        self.sliceSize = max(1, min(slice, count))
        self.serverPID = serverPID
        self.started = .allocate(capacity: count)
        self.finished = .allocate(capacity: count)
        self.started.initialize(repeating: 0)
        self.finished.initialize(repeating: 0)
    }

    deinit {
        self.started.deallocate()
        self.finished.deallocate()
    }

    /// Runs the load on threads of its own and returns once every connection was made.
    func run() async -> Outcome {
        let begin = monotonicNanos()
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<self.concurrency {
                group.addTask { _ = try? await onThread("churn-\(index)") { self.work() } }
            }
        }
        return self.outcome(seconds: Double(monotonicNanos() - begin) / 1e9, begin: begin)
    }

    private func work() {
        var buffer = [UInt8](repeating: 0, count: 512)
        while true {
            let index = self.next.add(1, ordering: .relaxed).oldValue
            guard index < self.count else { return }
            let start = monotonicNanos()
            do {
                try Self.ping(self.path, buffer: &buffer)
            } catch {
                if self.failureCount.add(1, ordering: .relaxed).oldValue == 0 {
                    self.firstFailure.withLock { $0 = "\(error)" }
                }
            }
            let end = monotonicNanos()
            self.started[index] = start
            self.finished[index] = end
            let completed = self.done.add(1, ordering: .relaxed).newValue
            if completed % self.sliceSize == 0 || completed == self.count {
                let status = self.serverPID.flatMap { try? MemoryStatus.read(pid: $0) }
                self.boundaries.withLock { $0[(completed - 1) / self.sliceSize] = (end, status) }
                let memory = status.map { ", VmRSS \(Format.decimal($0.rssMiB, digits: 1)) MiB" } ?? ""
                Log.progress("    \(Format.grouped(Double(completed))) connections\(memory)")
            }
        }
    }

    /// One connection: connect, the ping line, its reply line, close.
    private static func ping(_ path: String, buffer: inout [UInt8]) throws {
        let fd = try RawSocket.connect(path)
        defer { close(fd) }
        RawSocket.setTimeout(fd, seconds: 30)
        try RawSocket.pingLine.withUnsafeBytes { try RawSocket.writeAll(fd, $0) }
        var received = 0
        while true {
            let read = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + received, $0.count - received) }
            if read < 0, errno == EINTR { continue }
            if read < 0 { throw RawSocket.Failure("read") }
            if read == 0 { throw RawSocket.Failure(message: "connection closed before the reply") }
            received += read
            if buffer[received - 1] == 0x0A { break }
            if received == buffer.count { throw RawSocket.Failure(message: "reply longer than \(buffer.count) bytes") }
        }
        guard buffer[..<received].starts(with: RawSocket.pongLine.dropLast()) else {
            throw RawSocket.Failure(message: "unexpected reply: \(String(decoding: buffer[..<received], as: UTF8.self))")
        }
    }

    private func outcome(seconds: Double, begin: UInt64) -> Outcome {
        let boundaries = self.boundaries.withLock { $0 }
        var slices: [Slice] = []
        var sliceStart = 0
        var previousEnd = begin
        while sliceStart < self.count {
            let index = slices.count
            let end = min(sliceStart + self.sliceSize, self.count)
            var latencies: [Double] = []
            latencies.reserveCapacity(end - sliceStart)
            for connection in sliceStart..<end {
                latencies.append(Double(self.finished[connection] &- self.started[connection]) / 1000)
            }
            latencies.sort()
            let boundary = boundaries[index]
            let finishedAt = boundary?.nanos ?? previousEnd
            slices.append(
                Slice(
                    index: index,
                    count: end - sliceStart,
                    p50: Stats.percentile(sorted: latencies, 50),
                    p99: Stats.percentile(sorted: latencies, 99),
                    rate: Double(end - sliceStart) / max(Double(finishedAt &- previousEnd) / 1e9, 1e-9),
                    rssBytes: boundary?.memory?.rssBytes,
                    anonymousBytes: boundary?.memory?.anonymousBytes
                )
            )
            previousEnd = finishedAt
            sliceStart = end
        }
        return Outcome(
            slices: slices,
            failures: self.failureCount.load(ordering: .relaxed),
            firstFailure: self.firstFailure.withLock { $0 },
            seconds: seconds
        )
    }
}
