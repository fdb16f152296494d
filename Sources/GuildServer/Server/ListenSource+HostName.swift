#if canImport(Glibc)
import Glibc
#endif

extension ListenSource {
    /// This daemon's name among the hosts sharing a store (``PresenceHost/name``): the machine's id, its host name
    /// and the socket path it serves. One daemon at a time serves a path on a machine (a live one is never
    /// replaced), so a host starting under a name knows that every past run with it is dead. The host name tells
    /// apart containers made from one image, which may share a machine id and a socket path.
    var hostName: String {
        Self.machineID + ":" + Self.systemHostName + ":" + self.socketPath
    }

    /// `gethostname(2)`: the kernel's name for this host (no lookup).
    static let systemHostName: String = {
        var name = [CChar](repeating: 0, count: 256)
        guard gethostname(&name, name.count - 1) == 0 else { return "" }
        return String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }()

    /// The path served: the one bound, or the inherited socket's own address (systemd's socket unit).
    var socketPath: String {
        switch self {
        case .path(let path, _): return path
        case .inherited(let descriptor):
            var address = sockaddr_un()
            var length = socklen_t(MemoryLayout<sockaddr_un>.size)
            let named = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
            }
            guard named == 0, address.sun_family == sa_family_t(AF_UNIX) else { return "descriptor \(descriptor)" }
            return withUnsafeBytes(of: address.sun_path) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
        }
    }

    /// `/etc/machine-id` (systemd's id of this installation: 32 hex digits and a newline), or "" where there is
    /// none. Read with plain system calls: start-up pays for no Foundation file machinery.
    static let machineID: String = {
        let descriptor = open("/etc/machine-id", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return "" }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: 64)
        let count = read(descriptor, &bytes, bytes.count)
        guard count > 0 else { return "" }
        return String(decoding: bytes.prefix(count).prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
    }()
}
