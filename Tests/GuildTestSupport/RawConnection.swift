import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A plain blocking Unix-socket client that sends and reads exact bytes, for malformed-input tests.
public final class RawConnection {
    public let fd: Int32
    private var buffer: [UInt8] = []

    /// Connects to the Unix socket at `path`.
    public init(path: String) throws {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            bytes.withUnsafeBytes { raw.copyMemory(from: $0) }
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard result == 0 else {
            let error = POSIXError(.init(rawValue: errno) ?? .EIO)
            // Closed here, once: `fd` is not set yet, so `deinit` does not run. (It used to be set first, and a
            // failed connect closed it twice; in a test process whose other threads open files, the second close
            // could close one of theirs: SQLite's "disk I/O error", Foundation's EBADF launching a child.)
            close(descriptor)
            throw error
        }
        self.fd = descriptor
        // Non-blocking, so waiting never holds a thread of the cooperative pool the daemon under test needs.
        _ = fcntl(self.fd, F_SETFL, fcntl(self.fd, F_GETFL) | O_NONBLOCK)
    }

    deinit { close(self.fd) }

    /// Writes all bytes; false if the peer closed or nothing could be written for `timeout` seconds.
    @discardableResult
    public func send(_ bytes: [UInt8], timeout: Double = 30) async -> Bool {
        var offset = 0
        var deadline = Date().addingTimeInterval(timeout)
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.send(self.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written > 0 {
                offset += written
                deadline = Date().addingTimeInterval(timeout)
                continue
            }
            guard written < 0, errno == EAGAIN || errno == EWOULDBLOCK, deadline.timeIntervalSinceNow > 0 else { return false }
            try? await Task.sleep(for: .milliseconds(1))
        }
        return true
    }

    @discardableResult
    public func send(_ text: String) async -> Bool { await self.send(Array(text.utf8)) }

    /// Reads one line (without the newline); nil on EOF or timeout. The default timeout is long: under the whole
    /// suite's parallel load on two cores a reply has been seen to take over 5 s, and only a failing test waits it out.
    public func readLine(timeout: Double = 30) async -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let newline = self.buffer.firstIndex(of: 0x0A) {
                let line = Array(self.buffer[..<newline])
                self.buffer.removeFirst(newline + 1)
                return String(decoding: line, as: UTF8.self)
            }
            guard deadline.timeIntervalSinceNow > 0 else { return nil }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count = recv(self.fd, &chunk, chunk.count, 0)
            if count > 0 {
                self.buffer.append(contentsOf: chunk[..<count])
            } else if count == 0 || (errno != EAGAIN && errno != EWOULDBLOCK) {
                return nil
            } else {
                try? await Task.sleep(for: .milliseconds(1))
            }
        }
    }

    /// Reads one line as a JSON value.
    public func readJSON(timeout: Double = 30) async -> Any? {
        guard let line = await self.readLine(timeout: timeout) else { return nil }
        return try? JSONSerialization.jsonObject(with: Data(line.utf8), options: [.fragmentsAllowed])
    }

    /// Whether the daemon closed the connection: EOF within `timeout` (60 s, only to end a hang: a close that a
    /// busy machine delays still counts).
    public func isClosedByPeer(timeout: Double = 60) async -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while deadline.timeIntervalSinceNow > 0 {
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count = recv(self.fd, &chunk, chunk.count, 0)
            if count == 0 || (count < 0 && errno != EAGAIN && errno != EWOULDBLOCK) { return true }
            if count < 0 { try? await Task.sleep(for: .milliseconds(2)) }
        }
        return false
    }

    /// Sends `system.ping` and checks the reply.
    public func pings() async -> Bool {
        await self.send(#"{"jsonrpc":"2.0","id":"ping","method":"system.ping"}"# + "\n")
        while let reply = await self.readJSON() as? [String: Any] {
            if reply["id"] as? String == "ping" { return reply["result"] as? String == "pong" }
        }
        return false
    }
}

/// Reading JSON-RPC error replies decoded with `JSONSerialization`.
extension Dictionary where Key == String, Value == Any {
    /// `error.code` of a reply.
    public var errorCode: Int? { (self["error"] as? [String: Any])?["code"] as? Int }
    /// `error.data.reason` of a reply.
    public var errorReason: String? { ((self["error"] as? [String: Any])?["data"] as? [String: Any])?["reason"] as? String }
    /// `error.data.field` of a reply.
    public var errorField: String? { ((self["error"] as? [String: Any])?["data"] as? [String: Any])?["field"] as? String }
}
