import Foundation
import Glibc
import GuildHarness
import GuildProtocol

/// A raw connection to guildd that speaks newline-delimited JSON-RPC with plain POSIX calls (built on
/// ``RawSocket``): typed request lines from GuildProtocol's types, a growable receive buffer, and line
/// callbacks over the buffer's bytes, so that a reader can count notifications and pick a few numbers out
/// of them without decoding JSON. Used where GuildClient's per-message decoding would make the bench, not
/// guildd, the bottleneck (1,000 subscribers), and for replies too large for ``RawSocket/readLine(_:limit:)``.
///
/// Not thread-safe: one thread at a time uses a connection (it is handed between threads, never shared).
final class LineConnection: @unchecked Sendable {
    let fd: Int32
    private var buffer: UnsafeMutableRawPointer
    private var capacity: Int
    /// Unconsumed bytes are `start..<end`; `scanned` is how far they were searched for `\n`.
    private var start = 0
    private var end = 0
    private var scanned = 0
    private var nextID = 1
    private var isClosed = false

    /// Connects (blocking, with send/receive timeouts of `timeout` seconds).
    init(path: String, timeout: Double = 30, capacity: Int = 16 * 1024) throws {
        self.fd = try RawSocket.connect(path)
        RawSocket.setTimeout(self.fd, seconds: timeout)
        self.capacity = capacity
        self.buffer = .allocate(byteCount: capacity, alignment: 16)
    }

    deinit {
        self.buffer.deallocate()
        if !self.isClosed { Glibc.close(self.fd) }
    }

    func close() {
        guard !self.isClosed else { return }
        self.isClosed = true
        Glibc.close(self.fd)
    }

    /// For ``drain(_:)``: reads return at once when nothing is there.
    func setNonBlocking() {
        let flags = fcntl(self.fd, F_GETFL)
        _ = fcntl(self.fd, F_SETFL, flags | O_NONBLOCK)
    }

    // MARK: - Sending

    func send(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try RawSocket.writeAll(self.fd, $0) }
    }

    /// Sends one request line; returns its id.
    @discardableResult
    func send<M: RPCMethod>(_ method: M.Type, _ params: M.Params) throws -> Int {
        let id = self.nextID
        self.nextID += 1
        try self.send(RawRPC.request(method, params, id: id))
        return id
    }

    /// One call with nothing else in flight on this connection: sends, reads the reply line, decodes it.
    func call<M: RPCMethod>(_ method: M.Type, _ params: M.Params) throws -> M.Result {
        try self.send(method, params)
        return try RawRPC.decode(method, try self.readLine())
    }

    // MARK: - Receiving

    /// Blocking: the next line, without its `\n`.
    func readLine() throws -> [UInt8] {
        var line: [UInt8] = []
        try self.readLines { bytes in
            line = Array(bytes)
            return false
        }
        return line
    }

    /// Blocking: calls `body` with each line (without `\n`; the bytes are valid during the call only) until it
    /// returns false. Lines after that one stay buffered for the next read.
    func readLines(_ body: (UnsafeRawBufferPointer) throws -> Bool) throws {
        while try self.scan(body) {
            guard try self.fill() > 0 else {
                throw RawSocket.Failure(message: "read: connection closed by guildd")
            }
        }
    }

    /// Non-blocking (after ``setNonBlocking()``): one read of what is available, then `body` for every complete
    /// line buffered. Returns false when the peer closed the connection.
    func drain(_ body: (UnsafeRawBufferPointer) -> Void) throws -> Bool {
        let count = try self.fill()
        _ = self.scan { line in
            body(line)
            return true
        }
        return count != 0
    }

    /// Calls `body` for each complete buffered line while it returns true; false when it stopped.
    @inline(__always)
    private func scan(_ body: (UnsafeRawBufferPointer) throws -> Bool) rethrows -> Bool {
        while self.scanned < self.end {
            guard let newline = memchr(self.buffer + self.scanned, 0x0A, self.end - self.scanned) else {
                self.scanned = self.end
                break
            }
            let lineEnd = self.buffer.distance(to: UnsafeMutableRawPointer(newline))
            let line = UnsafeRawBufferPointer(start: self.buffer + self.start, count: lineEnd - self.start)
            self.start = lineEnd + 1
            self.scanned = self.start
            if try !body(line) { return false }
        }
        if self.start == self.end {
            self.start = 0
            self.end = 0
            self.scanned = 0
        }
        return true
    }

    /// One read into the buffer (compacting or growing it first); the byte count, 0 at end of stream, -1 when
    /// a non-blocking socket had nothing.
    private func fill() throws -> Int {
        if self.end == self.capacity {
            if self.start > 0 {
                let kept = self.end - self.start
                memmove(self.buffer, self.buffer + self.start, kept)
                self.scanned -= self.start
                self.end = kept
                self.start = 0
            } else {
                let grown = UnsafeMutableRawPointer.allocate(byteCount: self.capacity * 2, alignment: 16)
                grown.copyMemory(from: self.buffer, byteCount: self.end)
                self.buffer.deallocate()
                self.buffer = grown
                self.capacity *= 2
            }
        }
        while true {
            let count = read(self.fd, self.buffer + self.end, self.capacity - self.end)
            if count >= 0 {
                self.end += count
                return count
            }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK { return -1 }
            throw RawSocket.Failure("read")
        }
    }
}

extension [LineConnection] {
    /// Blocking: one call on every connection, all sent before any reply is read, so that they are in flight
    /// together (and their writes share commits); the results in the connections' order.
    func callEach<M: RPCMethod>(_ method: M.Type, _ params: (Int) throws -> M.Params) throws -> [M.Result] {
        for (index, connection) in self.enumerated() {
            try connection.send(method, try params(index))
        }
        return try self.map { try RawRPC.decode(method, try $0.readLine()) }
    }
}

/// Request lines, reply decoding and byte scanning for ``LineConnection``.
enum RawRPC {
    /// A request line (with its `\n`), params encoded like GuildClient does.
    static func request<M: RPCMethod>(_ method: M.Type, _ params: M.Params, id: Int) throws -> [UInt8] {
        var bytes: [UInt8] = []
        RPCMessageWriter.appendRequest(id: RequestID(id), method: M.name, params: try RPCCoding.encode(params), to: &bytes)
        bytes.append(UInt8(ascii: "\n"))
        return bytes
    }

    private struct Envelope<R: Decodable>: Decodable {
        var result: R?
        var error: RPCError?
    }

    /// The result of a reply line; throws the daemon's error (or an undecodable reply) with the line's text.
    static func decode<M: RPCMethod>(_ method: M.Type, _ reply: [UInt8]) throws -> M.Result {
        switch try Self.outcome(method, reply) {
        case .success(let result): return result
        case .failure(let error): throw DaemonError("\(M.name) failed: \(error)")
        }
    }

    /// The result or the daemon's error of a reply line; throws only when the line is no reply.
    static func outcome<M: RPCMethod>(_ method: M.Type, _ reply: [UInt8]) throws -> Result<M.Result, RPCError> {
        let envelope: Envelope<M.Result>
        do {
            envelope = try RPCCoding.decode(Envelope<M.Result>.self, from: reply)
        } catch {
            throw DaemonError("\(M.name): undecodable reply (\(error)): \(Self.preview(reply))")
        }
        if let error = envelope.error { return .failure(error) }
        guard let result = envelope.result else { throw DaemonError("\(M.name): reply without result: \(Self.preview(reply))") }
        return .success(result)
    }

    /// The first `limit` bytes of a line as text, for error messages.
    static func preview(_ bytes: some Collection<UInt8>, limit: Int = 400) -> String {
        let text = String(decoding: bytes.prefix(limit), as: UTF8.self)
        return bytes.count > limit ? text + "… (\(bytes.count) bytes)" : text
    }

    /// Where `needle` first occurs in `line` at or after `from`; nil when it does not.
    @inline(__always)
    static func find(_ needle: UnsafeRawBufferPointer, in line: UnsafeRawBufferPointer, from: Int = 0) -> Int? {
        guard needle.count > 0, from >= 0, line.count >= needle.count, let base = line.baseAddress else { return nil }
        let first = needle[0]
        var index = from
        let last = line.count - needle.count
        while index <= last {
            guard let hit = memchr(base + index, Int32(first), last - index + 1) else { return nil }
            let position = base.distance(to: UnsafeRawPointer(hit))
            // The keys sought are a few bytes after a quote, and most quotes start something else: compared
            // in place, not with a memcmp call per quote (the subscriber reader scans 2 million lines a second).
            var matched = 1
            while matched < needle.count, line[position + matched] == needle[matched] { matched += 1 }
            if matched == needle.count { return position }
            index = position + 1
        }
        return nil
    }

    /// The non-negative integer right after `key` (e.g. `"seq":`) at or after `from`, and the index after it.
    @inline(__always)
    static func integer(after key: UnsafeRawBufferPointer, in line: UnsafeRawBufferPointer, from: Int = 0) -> (value: Int64, end: Int)? {
        guard let position = Self.find(key, in: line, from: from) else { return nil }
        var index = position + key.count
        var value: Int64 = 0
        var digits = 0
        while index < line.count, line[index] >= 0x30, line[index] <= 0x39 {
            value = value * 10 + Int64(line[index] - 0x30)
            index += 1
            digits += 1
        }
        return digits > 0 ? (value, index) : nil
    }

    /// Whether `line` contains `text`.
    static func contains(_ line: UnsafeRawBufferPointer, _ text: [UInt8]) -> Bool {
        text.withUnsafeBytes { Self.find($0, in: line) != nil }
    }

    static func contains(_ line: [UInt8], _ text: [UInt8]) -> Bool {
        line.withUnsafeBytes { Self.contains($0, text) }
    }
}

/// Milliseconds since the Unix epoch (CLOCK_REALTIME), the clock guildd stamps events with.
@inline(__always)
func wallClockMilliseconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_REALTIME, &time)
    return Double(time.tv_sec) * 1000 + Double(time.tv_nsec) / 1e6
}

/// Raises this process's soft RLIMIT_NOFILE to at least `count` (up to the hard limit).
func raiseFileLimit(atLeast count: Int) throws {
    var limit = rlimit()
    guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { throw RawSocket.Failure("getrlimit") }
    guard limit.rlim_cur < rlim_t(count) else { return }
    guard limit.rlim_max >= rlim_t(count) else {
        throw DaemonError("need \(count) file descriptors but the hard limit is \(limit.rlim_max) (raise it with ulimit -Hn)")
    }
    limit.rlim_cur = rlim_t(count)
    guard setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { throw RawSocket.Failure("setrlimit") }
}

/// A guildd of a benchmark's own on `NAME.sock` and `NAME.db` in the work directory (log `NAME.log`), with a
/// cheap scrypt cost and `--synchronous FULL` like the shared one; returns once it answers pings.
func launchOwnDaemon(_ context: BenchContext, name: String, extraArguments: [String] = []) async throws -> Daemon {
    let socket = context.path("\(name).sock")
    let daemon = try await Daemon.launch(
        name: "guildd (\(name))",
        executable: context.guilddPath,
        arguments: [
            "--socket", socket,
            "--database", context.path("\(name).db"),
            "--scrypt-log-n", "4",
            "--synchronous", "FULL",
        ] + extraArguments,
        socketPath: socket,
        logPath: context.path("\(name).log")
    )
    do {
        try await daemon.waitUntilReady()
    } catch {
        await daemon.stop()
        throw error
    }
    context.progress("  guildd pid \(daemon.pid) on \(socket)")
    return daemon
}

/// Runs `body` against a guildd of its own (see ``launchOwnDaemon(_:name:extraArguments:)``), stopping it
/// afterwards; when `body` fails, the daemon log's problems are reported first.
func withOwnDaemon<T>(
    _ context: BenchContext,
    name: String,
    extraArguments: [String] = [],
    _ body: (Daemon) async throws -> T
) async throws -> T {
    let daemon = try await launchOwnDaemon(context, name: name, extraArguments: extraArguments)
    do {
        let result = try await body(daemon)
        await daemon.stop()
        return result
    } catch {
        reportDaemonLogProblems(daemon, context)
        await daemon.stop()
        throw error
    }
}

extension Measurement {
    /// guildd's resident memory after a benchmark's work, with its peak in the note.
    static func rss(benchmark: String, after what: String, _ memory: MemoryStatus) -> Measurement {
        Measurement(
            benchmark: benchmark,
            figure: "guildd RSS after \(what)",
            value: memory.rssMiB,
            unit: .mebibytes,
            baseline: nil,
            baselineName: nil,
            target: nil,
            note: "peak \(Format.decimal(memory.hwmMiB, digits: 1)) MiB"
        )
    }
}

/// Progress lines for whatever in a daemon's log looks like a problem (warning, error, critical).
func reportDaemonLogProblems(_ daemon: Daemon, _ context: BenchContext) {
    guard let text = try? String(contentsOfFile: daemon.logPath, encoding: .utf8) else { return }
    let problems = text.split(separator: "\n").filter { line in
        let lower = line.lowercased()
        return lower.contains("warning") || lower.contains("error") || lower.contains("critical")
    }
    guard !problems.isEmpty else { return }
    context.progress("  \(daemon.name) log \(daemon.logPath): \(problems.count) warning/error line(s), first ones:")
    for line in problems.prefix(5) { context.progress("    \(line.prefix(300))") }
}
