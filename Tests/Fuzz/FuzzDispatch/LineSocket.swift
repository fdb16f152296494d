import Foundation
import FuzzSupport

#if canImport(Glibc)
import Glibc
#endif

/// A blocking Unix-socket client for the fuzzer's own thread (never a thread of the cooperative pool the
/// server runs on): writes exact bytes, reads lines with a deadline.
final class LineSocket {
    private let fd: Int32
    private var buffer: [UInt8] = []
    /// Whether the server closed the connection.
    private(set) var closed = false

    init(path: String) {
        self.fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in bytes.withUnsafeBytes { raw.copyMemory(from: $0) } }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(self.fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        Invariant.check(result == 0, "cannot connect to the server (errno \(errno))")
        _ = fcntl(self.fd, F_SETFL, fcntl(self.fd, F_GETFL) | O_NONBLOCK)
    }

    deinit { close(self.fd) }

    /// Writes all bytes before `deadline`; false if the server closed the connection or stopped reading.
    @discardableResult
    func send(_ bytes: [UInt8], until deadline: ContinuousClock.Instant) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.send(self.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written > 0 {
                offset += written
            } else if written < 0, errno == EAGAIN || errno == EWOULDBLOCK, self.wait(events: Int16(POLLOUT), until: deadline) {
                continue
            } else {
                return false
            }
        }
        return true
    }

    /// The next line (without its newline), or nil on end of stream or at the deadline.
    func readLine(until deadline: ContinuousClock.Instant) -> [UInt8]? {
        while true {
            if let newline = self.buffer.firstIndex(of: 0x0A) {
                let line = Array(self.buffer[..<newline])
                self.buffer.removeFirst(newline + 1)
                return line
            }
            guard !self.closed, self.wait(events: Int16(POLLIN), until: deadline) else { return nil }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count = recv(self.fd, &chunk, chunk.count, 0)
            if count > 0 {
                self.buffer += chunk[..<count]
            } else if count == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
                self.closed = true
            }
        }
    }

    private func wait(events: Int16, until deadline: ContinuousClock.Instant) -> Bool {
        let remaining = deadline - .now
        guard remaining > .zero else { return false }
        var descriptor = pollfd(fd: self.fd, events: events, revents: 0)
        let milliseconds = Int32(remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000 + 1)
        return poll(&descriptor, 1, milliseconds) > 0
    }
}
