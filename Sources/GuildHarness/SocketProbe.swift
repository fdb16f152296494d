import Foundation
import Glibc

/// Asks a daemon whether it serves: one `system.ping` over a fresh connection to its Unix socket, with plain
/// blocking calls run on a thread of their own (never on the cooperative pool the daemon under test may need).
public enum SocketProbe {
    /// Pings the daemon at `path`; returns the reply line, throws when it is not `"pong"` or nothing came within
    /// `timeout` seconds.
    @discardableResult
    public static func ping(_ path: String, timeout: Double = 5) async throws -> String {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<String, any Error>) in
            let thread = Thread { continuation.resume(with: Result { try Self.blockingPing(path, timeout: timeout) }) }
            thread.name = "ready-probe"
            thread.start()
        }
    }

    /// Waits until the daemon at `path` answers a ping, up to `timeout` seconds; `check` runs before every try
    /// (e.g. to stop waiting for a process that exited) and may throw.
    public static func waitUntilServing(
        _ path: String,
        timeout: Double = 20,
        check: () throws -> Void = {}
    ) async throws {
        let deadline = Deadline(seconds: timeout)
        var lastError: (any Error)?
        while !deadline.hasPassed {
            try check()
            if FileManager.default.fileExists(atPath: path) {
                do {
                    try await Self.ping(path, timeout: 5)
                    return
                } catch {
                    lastError = error
                }
            }
            try await Task.sleep(for: .milliseconds(5))
        }
        throw DaemonError("not serving on \(path) after \(timeout) s (\(lastError.map { "\($0)" } ?? "no socket file"))")
    }

    private static let pingLine = Array("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"system.ping\"}\n".utf8)

    private static func blockingPing(_ path: String, timeout: Double) throws -> String {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw DaemonError("socket: errno \(errno)") }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { throw DaemonError("socket path too long: \(path)") }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in bytes.withUnsafeBytes { raw.copyMemory(from: $0) } }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else { throw DaemonError("connect \(path): errno \(errno)") }
        var interval = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1e6))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &interval, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &interval, socklen_t(MemoryLayout<timeval>.size))
        var offset = 0
        while offset < Self.pingLine.count {
            let written = Self.pingLine[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard written > 0 else { throw DaemonError("write: errno \(errno)") }
            offset += written
        }
        var line: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while !line.contains(UInt8(ascii: "\n")) {
            let count = recv(fd, &chunk, chunk.count, 0)
            if count < 0 { throw DaemonError("read: errno \(errno)") }
            if count == 0 { throw DaemonError("read: connection closed before a full line") }
            line.append(contentsOf: chunk[0..<count])
            if line.count > 65536 { throw DaemonError("read: line longer than 65536 bytes") }
        }
        let reply = String(decoding: line, as: UTF8.self)
        guard reply.contains("\"result\":\"pong\"") else {
            throw DaemonError("unexpected ping reply: \(reply.trimmingCharacters(in: .whitespacesAndNewlines))")
        }
        return reply
    }
}
