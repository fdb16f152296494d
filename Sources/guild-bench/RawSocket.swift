import Dispatch
import Foundation
import Glibc
import Synchronization

/// Blocking Unix-domain stream sockets over plain POSIX calls: the echo baseline, readiness probes and
/// the cold-start client. Every descriptor is close-on-exec so daemons started later don't inherit it.
enum RawSocket {
    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ what: String, errno code: Int32 = errno) {
            self.description = "\(what): \(String(cString: strerror(code)))"
        }
        init(message: String) {
            self.description = message
        }
    }

    /// The largest socket path the kernel takes (`sun_path` minus the terminating NUL).
    static let maximumPathBytes = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1

    private static func address(_ path: String) throws -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count <= Self.maximumPathBytes else {
            throw Failure(message: "socket path too long (\(bytes.count) > \(Self.maximumPathBytes) bytes): \(path)")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return address
    }

    private static func makeSocket() throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure("socket") }
        return fd
    }

    /// Connects to `path`; the caller closes the descriptor.
    static func connect(_ path: String) throws -> Int32 {
        var address = try Self.address(path)
        let fd = try Self.makeSocket()
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard result == 0 else {
            let code = errno
            Glibc.close(fd)
            throw Failure("connect \(path)", errno: code)
        }
        return fd
    }

    /// Connects to `path` with a non-blocking socket, so that a full listen backlog fails at once (EAGAIN)
    /// instead of blocking; the descriptor stays non-blocking. The caller closes it.
    static func connectNonBlocking(_ path: String) throws -> Int32 {
        var address = try Self.address(path)
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw Failure("socket") }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard result == 0 else {
            let code = errno
            Glibc.close(fd)
            throw Failure("connect \(path)", errno: code)
        }
        return fd
    }

    /// Binds and listens on `path` (removing a stale file first); the caller closes the descriptor.
    static func listen(_ path: String, backlog: Int32 = 16) throws -> Int32 {
        var address = try Self.address(path)
        unlink(path)
        let fd = try Self.makeSocket()
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0, Glibc.listen(fd, backlog) == 0 else {
            let code = errno
            Glibc.close(fd)
            throw Failure("bind/listen \(path)", errno: code)
        }
        return fd
    }

    /// Sets send and receive timeouts, so a silent peer cannot hang the benchmark.
    static func setTimeout(_ fd: Int32, seconds: Double) {
        var value = timeval(tv_sec: Int(seconds), tv_usec: Int((seconds - seconds.rounded(.down)) * 1_000_000))
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Writes every byte.
    static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) throws {
        var offset = 0
        while offset < bytes.count {
            let written = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw Failure("write")
            }
            offset += written
        }
    }

    /// Reads exactly `buffer.count` bytes.
    static func readExactly(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) throws {
        var offset = 0
        while offset < buffer.count {
            let count = read(fd, buffer.baseAddress! + offset, buffer.count - offset)
            if count < 0 {
                if errno == EINTR { continue }
                throw Failure("read")
            }
            if count == 0 { throw Failure(message: "read: connection closed by peer") }
            offset += count
        }
    }

    /// Reads until a `\n` arrives (the reply is expected to be one line); returns the bytes read.
    static func readLine(_ fd: Int32, limit: Int = 1 << 20) throws -> [UInt8] {
        var line: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw Failure("read")
            }
            if count == 0 { throw Failure(message: "read: connection closed before a full line") }
            line.append(contentsOf: chunk[0..<count])
            if chunk[0..<count].contains(UInt8(ascii: "\n")) { return line }
            if line.count > limit { throw Failure(message: "read: line longer than \(limit) bytes") }
        }
    }

    static let pingLine = Array("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"system.ping\"}\n".utf8)
    /// guildd's reply to ``pingLine``, as the floors answer it.
    static let pongLine = Array(#"{"jsonrpc":"2.0","id":1,"result":"pong"}"#.utf8) + [0x0A]

    /// One `system.ping` over a fresh raw connection: connect, write the request line, read the reply line.
    /// Returns the reply text; throws when the reply is not `"pong"`.
    @discardableResult
    static func ping(_ path: String, timeout: Double) throws -> String {
        let fd = try Self.connect(path)
        defer { Glibc.close(fd) }
        Self.setTimeout(fd, seconds: timeout)
        try Self.pingLine.withUnsafeBytes { try Self.writeAll(fd, $0) }
        let reply = String(decoding: try Self.readLine(fd), as: UTF8.self)
        guard reply.contains("\"result\":\"pong\"") else {
            throw Failure(message: "unexpected ping reply: \(reply.trimmingCharacters(in: .whitespacesAndNewlines))")
        }
        return reply
    }
}

/// Monotonic time in nanoseconds.
@inline(__always)
func monotonicNanos() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

/// Runs blocking work on a dedicated thread (not the cooperative pool) and awaits its result.
func onThread<T: Sendable>(_ name: String, _ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
        let thread = Thread {
            continuation.resume(with: Result { try body() })
        }
        thread.name = name
        thread.start()
    }
}

/// A dedicated thread that runs blocking jobs one after another, so that a series measured in several
/// chunks keeps running on the same thread (a fresh thread per chunk lands wherever the scheduler puts it).
final class BlockingWorker: Sendable {
    private enum Job: Sendable {
        case run(@Sendable () -> Void)
        case stop
    }

    private let jobs = Mutex<[Job]>([])
    private let available = DispatchSemaphore(value: 0)

    init(name: String) {
        // The thread holds the worker until it gets `.stop`.
        let thread = Thread { [self] in
            while true {
                self.available.wait()
                let job = self.jobs.withLock { $0.removeFirst() }
                switch job {
                case .run(let body): body()
                case .stop: return
                }
            }
        }
        thread.name = name
        thread.start()
    }

    /// Runs `body` on the worker's thread and returns its result.
    func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            self.enqueue(.run { continuation.resume(with: Result { try body() }) })
        }
    }

    /// Ends the thread after the jobs already queued.
    func stop() {
        self.enqueue(.stop)
    }

    private func enqueue(_ job: Job) {
        self.jobs.withLock { $0.append(job) }
        self.available.signal()
    }
}
