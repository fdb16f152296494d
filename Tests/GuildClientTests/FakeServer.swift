import Foundation
import Glibc

/// A minimal JSON-RPC peer for client tests: a Unix socket server on a background thread, using blocking
/// POSIX calls, that hands every received line to a handler and writes whatever the handler answers.
///
/// Each server has its own short socket path under /tmp and removes it when stopped. One connection is served
/// at a time; when it ends the server accepts the next one.
final class FakeServer: @unchecked Sendable {
    /// One line received from the client.
    struct Request {
        /// The line's bytes, without the newline.
        var bytes: [UInt8]
        /// The line parsed with JSONSerialization (nil when it is not JSON).
        var json: Any?

        var text: String { String(decoding: self.bytes, as: UTF8.self) }
        var object: [String: Any]? { self.json as? [String: Any] }
        /// The entries of a batch line.
        var batch: [[String: Any]]? { self.json as? [[String: Any]] }
        var method: String? { self.object?["method"] as? String }
        var params: Any? { self.object?["params"] }
        /// The id of a single request as JSON text, for echoing.
        var idJSON: String? { self.object.flatMap { FakeServer.idJSON(of: $0) } }
    }

    /// What the server does in answer.
    enum Action: Sendable {
        /// Writes this text followed by a newline.
        case line(String)
        /// Writes these bytes exactly.
        case raw([UInt8])
        /// Waits before doing the next action.
        case delay(Duration)
        /// Closes the connection.
        case close
    }

    typealias Handler = @Sendable (Request) -> [Action]

    let path: String
    private let handler: Handler
    private let onConnect: @Sendable () -> [Action]
    private let lock = NSLock()
    private let done = DispatchSemaphore(value: 0)
    private var listenFD: Int32 = -1
    private var clientFD: Int32 = -1
    private var stopping = false
    private var _received: [[UInt8]] = []
    private var _receivedBytes: [UInt8] = []
    private var _connections = 0

    /// Starts listening.
    /// - Parameters:
    ///   - onConnect: actions performed as soon as a client connects (e.g. a pushed notification).
    ///   - handler: called on the server thread for every line; returns the actions to perform.
    init(onConnect: @escaping @Sendable () -> [Action] = { [] }, handler: @escaping Handler) throws {
        var random = SystemRandomNumberGenerator()
        let suffix = String(format: "%08x", UInt32.random(in: .min ... .max, using: &random))
        self.path = "/tmp/gct-\(suffix).sock"
        self.handler = handler
        self.onConnect = onConnect
        precondition(self.path.utf8.count < 100)

        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        unlink(self.path)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            buffer.initializeMemory(as: UInt8.self, repeating: 0)
            buffer.copyBytes(from: self.path.utf8)
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0, listen(fd, 16) == 0 else {
            let code = errno
            close(fd)
            unlink(self.path)
            throw POSIXError(.init(rawValue: code) ?? .EIO)
        }
        self.listenFD = fd
        let thread = Thread { [self] in
            self.run()
            self.done.signal()
        }
        thread.name = "FakeServer \(self.path)"
        thread.start()
    }

    deinit {
        // `stop()` must have been called; make sure the path does not leak anyway.
        unlink(self.path)
    }

    // MARK: - Inspection

    /// Every line received so far, without newlines.
    var receivedLines: [[UInt8]] { self.lock.withLock { self._received } }

    /// Every byte received so far, newlines included.
    var receivedBytes: [UInt8] { self.lock.withLock { self._receivedBytes } }

    /// How many connections were accepted.
    var connectionCount: Int { self.lock.withLock { self._connections } }

    /// Waits until `condition` holds for the received lines (or the timeout passes); returns the lines.
    func waitForLines(
        timeout: Duration = .seconds(60),
        until condition: ([[UInt8]]) -> Bool
    ) async throws -> [[UInt8]] {
        let deadline = ContinuousClock.now + timeout
        while true {
            let lines = self.receivedLines
            if condition(lines) || ContinuousClock.now >= deadline { return lines }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    // MARK: - Control

    /// Writes a line to the current client (from any thread); false when no client is connected.
    @discardableResult
    func push(_ line: String) -> Bool {
        self.lock.withLock {
            guard self.clientFD >= 0 else { return false }
            return Self.writeAll(self.clientFD, Array(line.utf8) + [0x0A])
        }
    }

    /// Stops the server: closes every socket, joins the thread and removes the socket file.
    func stop() {
        let alreadyStopping = self.lock.withLock {
            let was = self.stopping
            self.stopping = true
            if self.clientFD >= 0 { shutdown(self.clientFD, Int32(SHUT_RDWR)) }
            return was
        }
        guard !alreadyStopping else { return }
        self.done.wait()
        unlink(self.path)
    }

    // MARK: - Server thread

    private var isStopping: Bool { self.lock.withLock { self.stopping } }

    private func run() {
        defer { close(self.listenFD) }
        while !self.isStopping {
            guard Self.waitReadable(self.listenFD) else { continue }
            let fd = accept(self.listenFD, nil, nil)
            guard fd >= 0 else { continue }
            var one: Int32 = 1
            _ = setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, socklen_t(MemoryLayout<Int32>.size))
            self.lock.withLock {
                self.clientFD = fd
                self._connections += 1
            }
            self.serve(fd)
            self.lock.withLock {
                self.clientFD = -1
                close(fd)
            }
        }
    }

    /// Serves one connection until it closes, an action closes it, or the server stops.
    private func serve(_ fd: Int32) {
        guard self.perform(self.onConnect(), on: fd) else { return }
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while !self.isStopping {
            guard Self.waitReadable(fd) else { continue }
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            guard count > 0 else { return }
            let chunk = buffer[0..<count]
            self.lock.withLock { self._receivedBytes.append(contentsOf: chunk) }
            pending.append(contentsOf: chunk)
            while let newline = pending.firstIndex(of: 0x0A) {
                let line = Array(pending[..<newline])
                pending.removeSubrange(...newline)
                self.lock.withLock { self._received.append(line) }
                let json = try? JSONSerialization.jsonObject(with: Data(line), options: [.fragmentsAllowed])
                guard self.perform(self.handler(Request(bytes: line, json: json)), on: fd) else { return }
            }
        }
    }

    /// Performs actions; false when the connection is to be closed.
    private func perform(_ actions: [Action], on fd: Int32) -> Bool {
        for action in actions {
            switch action {
            case .line(let text):
                let ok = self.lock.withLock { Self.writeAll(fd, Array(text.utf8) + [0x0A]) }
                if !ok { return false }
            case .raw(let bytes):
                let ok = self.lock.withLock { Self.writeAll(fd, bytes) }
                if !ok { return false }
            case .delay(let duration):
                let (seconds, attoseconds) = duration.components
                usleep(useconds_t(seconds * 1_000_000 + attoseconds / 1_000_000_000_000))
            case .close:
                return false
            }
        }
        return true
    }

    /// Waits up to 50 ms for `fd` to become readable (or hung up).
    private static func waitReadable(_ fd: Int32) -> Bool {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&poller, 1, 50) > 0
    }

    private static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }

    // MARK: - Reply helpers

    /// The `id` member of a request object as JSON text (`null` when absent).
    static func idJSON(of object: [String: Any]) -> String? {
        guard let id = object["id"] else { return nil }
        if id is NSNull { return "null" }
        guard let data = try? JSONSerialization.data(withJSONObject: id, options: [.fragmentsAllowed]) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    /// A success response line.
    static func result(id: String, _ resultJSON: String) -> String {
        #"{"jsonrpc":"2.0","id":\#(id),"result":\#(resultJSON)}"#
    }

    /// An error response line.
    static func error(id: String, code: Int, message: String, reason: String, field: String? = nil) -> String {
        let fieldJSON = field.map { #","field":"\#($0)""# } ?? ""
        return #"{"jsonrpc":"2.0","id":\#(id),"error":{"code":\#(code),"message":"\#(message)","data":{"reason":"\#(reason)"\#(fieldJSON)}}}"#
    }
}

/// A value shared between a test and a server handler.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<R>(_ body: (inout Value) -> R) -> R {
        self.lock.lock()
        defer { self.lock.unlock() }
        return body(&self.value)
    }

    var current: Value { self.withLock { $0 } }
}
