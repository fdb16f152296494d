import Foundation
import NIOCore

#if canImport(Glibc)
import Glibc
#endif

/// Checks a socket path before binding: a stale socket file (nobody listening) is replaced; a live one,
/// or a file that is not a socket, is left alone and the daemon refuses to start.
enum SocketPath {
    /// Why the path cannot be bound.
    struct Refusal: Error, CustomStringConvertible {
        var description: String

        init(description: String) {
            self.description = description
        }

        /// Binding `path` failed with `error` (NIO's messages name neither the path nor, for a long one, the
        /// limit).
        init(path: String, _ error: any Error) {
            let reason: String =
                switch error {
                case let error as IOError: String(cString: strerror(error.errnoCode))
                case SocketAddressError.unixDomainSocketPathTooLong:
                    "the path is \(path.utf8.count) bytes; a Unix socket address holds at most \(Self.longestPath)"
                default: "\(error)"
                }
            self.description = "cannot listen on \(path): \(reason)"
        }

        /// The longest path a `sockaddr_un` holds (107 bytes on Linux, with its terminating NUL).
        static var longestPath: Int { MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1 }
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
