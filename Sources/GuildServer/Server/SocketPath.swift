import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Checks a socket path before binding: a stale socket file (nobody listening) is replaced; a live one,
/// or a file that is not a socket, is left alone and the daemon refuses to start.
enum SocketPath {
    /// Why the path cannot be bound.
    struct Refusal: Error, CustomStringConvertible {
        var description: String
    }

    static func prepare(_ path: String) throws {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }  // nothing there
        guard (info.st_mode & S_IFMT) == S_IFSOCK else {
            throw Refusal(description: "\(path) exists and is not a socket; not replacing it")
        }
        if Self.isLive(path) {
            throw Refusal(description: "another daemon is already serving \(path)")
        }
    }

    /// Whether something accepts connections at `path`.
    static func isLive(_ path: String) -> Bool {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in bytes.withUnsafeBytes { raw.copyMemory(from: $0) } }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        return result == 0
    }
}
