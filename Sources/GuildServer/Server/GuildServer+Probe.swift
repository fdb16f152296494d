import Foundation
import NIOCore
import NIOExtras
import NIOPosix
import Synchronization

extension GuildServer {
    /// Whether something accepts connections on the Unix socket at `path`: a daemon serving it, or a service
    /// manager holding it for one. guildd's start-up replaces a socket file only when nothing does, and
    /// `--restore` refuses to run while something does.
    public static func isServing(socketPath path: String) -> Bool {
        SocketPath.isLive(path)
    }

    /// Calls `system.health` through the daemon's own socket, as a client would, and says whether a reply
    /// came within `timeout`. The call goes through the event loops, the dispatcher, a database read and
    /// the reply path, so it fails when requests cannot be served, whatever still answers `system.ping`.
    /// The systemd watchdog is fed from it.
    ///
    /// Once the server has stopped accepting (idle exit; under socket activation the service manager keeps
    /// the socket, so a probe would queue a connection that starts the next instance), there is nothing to
    /// probe through: it passes, and the daemon finishes serving the connections it has.
    public func probe(timeout: Duration) async -> Bool {
        guard let listener = self.listener.withLock({ $0 }) else { return false }
        guard listener.isActive else { return true }
        guard let address = listener.localAddress else { return false }
        let group = self.group
        return await withTaskGroup(of: Bool.self) { tasks in
            tasks.addTask { (try? await Self.callHealth(at: address, group: group)) ?? false }
            tasks.addTask {
                try? await Task.sleep(for: timeout)
                return false
            }
            let first = await tasks.next() ?? false
            tasks.cancelAll()
            return first
        }
    }

    private static func callHealth(at address: SocketAddress, group: any EventLoopGroup) async throws -> Bool {
        let channel = try await ClientBootstrap(group: group).connect(to: address) { channel in
            channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(LineBasedFrameDecoder()))
                return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
            }
        }
        return try await channel.executeThenClose { inbound, outbound in
            try await outbound.write(ByteBuffer(string: #"{"jsonrpc":"2.0","id":1,"method":"system.health"}"# + "\n"))
            for try await line in inbound {
                return line.readableBytesView.firstRange(of: Array(#""status":"ok""#.utf8)) != nil
            }
            return false
        }
    }
}
