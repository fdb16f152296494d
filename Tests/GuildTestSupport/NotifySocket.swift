import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Plays systemd's side of `sd_notify`: a datagram socket the daemon reports READY=1, STATUS=, STOPPING=1
/// and WATCHDOG=1 to.
public final class NotifySocket: @unchecked Sendable {
    // @unchecked: used from one test task at a time.
    /// The socket's path (for `NOTIFY_SOCKET`).
    public let path: String
    private let fd: Int32
    /// Every message received so far.
    public private(set) var messages: [String] = []

    /// Binds a datagram socket at `path`.
    public init(path: String) throws {
        self.path = path
        self.fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in bytes.withUnsafeBytes { raw.copyMemory(from: $0) } }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(self.fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard result == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        _ = fcntl(self.fd, F_SETFL, fcntl(self.fd, F_GETFL) | O_NONBLOCK)
    }

    deinit {
        close(self.fd)
        unlink(self.path)
    }

    /// Waits until a received message contains `text`.
    public func waitFor(_ text: String, timeout: Double = 60) async -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while deadline.timeIntervalSinceNow > 0 {
            self.drain()
            if self.messages.contains(where: { $0.contains(text) }) { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return false
    }

    /// How many received messages contain `text` so far.
    public func count(_ text: String) -> Int {
        self.drain()
        return self.messages.count { $0.contains(text) }
    }

    private func drain() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(self.fd, &buffer, buffer.count, 0)
            guard count > 0 else { return }
            self.messages.append(String(decoding: buffer[..<count], as: UTF8.self))
        }
    }
}
