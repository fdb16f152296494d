import GuildCore
import NIOCore
import NIOPosix

#if canImport(Glibc)
import Glibc
#endif

/// The layout of Linux's `struct ucred`, which Glibc's Swift module does not export.
struct SocketPeerCredentials: Sendable {
    var pid: Int32 = 0
    var uid: UInt32 = 0
    var gid: UInt32 = 0
}

extension Channel {
    /// Reads the peer's credentials from the kernel (`SO_PEERCRED`). Never from anything the peer sends.
    func peerCredentials() -> EventLoopFuture<PeerCredentials> {
        guard let provider = self as? any SocketOptionProvider else {
            return self.eventLoop.makeSucceededFuture(PeerCredentials(uid: UInt32.max, gid: UInt32.max, pid: 0))
        }
        #if os(Linux)
        let peerCred = SocketOptionName(17)  // SO_PEERCRED
        #else
        let peerCred = SocketOptionName(0x0001)  // LOCAL_PEERCRED is not ucred; non-Linux gets no admin
        #endif
        return provider.unsafeGetSocketOption(level: SocketOptionLevel(SOL_SOCKET), name: peerCred)
            .map { (credentials: SocketPeerCredentials) in
                PeerCredentials(uid: credentials.uid, gid: credentials.gid, pid: credentials.pid)
            }
    }
}
