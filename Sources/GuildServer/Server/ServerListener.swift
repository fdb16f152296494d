import Foundation
import Logging
import NIOCore
import NIOPosix
import Synchronization

/// The daemon's listening socket, bound (or adopted from the service manager) as soon as the daemon knows where,
/// so that NIO's start-up runs on an event loop beside the store's opening instead of after it. It accepts
/// nothing until ``GuildServer/run()`` serves it: a client that connects earlier waits in the kernel's backlog,
/// as it would for a daemon still starting.
public final class ServerListener: Sendable {
    /// Where it listens.
    public let source: ListenSource
    /// The listening channel, once bound; fails if the socket cannot be bound (a live daemon on the path, a file
    /// that is not a socket).
    let channel: EventLoopFuture<any Channel>
    /// What each accepted connection is handed to: set by the server that serves this listener.
    let acceptor = Acceptor()

    /// The handler, set once by ``serve(_:)`` and read for each accepted connection.
    final class Acceptor: Sendable {
        /// The handler in a struct of its own. A bare function type as the `Mutex`'s value is reabstracted on
        /// each `withLock`: read out through one thunk and written back through another, so every accepted
        /// connection wrapped the stored closure in two more thunks. The chain grew by two frames and two heap
        /// contexts per connection ever accepted, was walked for each new one, and overflowed the event loop's
        /// stack after about a hundred thousand connections.
        private struct Handler {
            let body: @Sendable (any Channel) -> EventLoopFuture<Void>
        }

        private let handler = Mutex<Handler?>(nil)

        func set(_ body: @escaping @Sendable (any Channel) -> EventLoopFuture<Void>) {
            self.handler.withLock { $0 = Handler(body: body) }
        }

        /// Hands an accepted connection to the handler; closes it if none is set.
        func accept(_ channel: any Channel) -> EventLoopFuture<Void> {
            guard let handler = self.handler.withLock({ $0 }) else {
                // Not reachable from the bootstrap: reading starts only after `serve(_:)` has set the handler.
                return channel.close()
            }
            return handler.body(channel)
        }
    }

    /// Starts binding `source` on one of `group`'s event loops and returns at once; accept errors go to `logger`.
    public init(_ source: ListenSource, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton, logger: Logger) {
        self.source = source
        let acceptor = self.acceptor
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 4096)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            // Nothing is accepted until a server serves this listener (`serve(_:)`).
            .serverChannelOption(.autoRead, value: false)
            // Out of descriptors (EMFILE), accepting pauses for a moment instead of spinning.
            .serverChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(AcceptPauseHandler(logger: logger))
                }
            }
            .childChannelOption(.allowRemoteHalfClosure, value: true)
            .childChannelOption(.writeBufferWaterMark, value: .init(low: 256 * 1024, high: 1024 * 1024))
            .childChannelInitializer { channel in acceptor.accept(channel) }
        switch source {
        case .inherited(let descriptor):
            self.channel = bootstrap.withBoundSocket(descriptor)
        case .path(let path, let mode):
            let directory = (path as NSString).deletingLastPathComponent
            try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            do {
                try SocketPath.prepare(path)
                self.channel = bootstrap.bind(unixDomainSocketPath: path, cleanupExistingSocketFile: true)
                    .map { channel in
                        chmod(path, mode_t(mode))
                        return channel
                    }
                    .flatMapErrorThrowing { error in throw SocketPath.Refusal(path: path, error) }
            } catch {
                self.channel = group.any().makeFailedFuture(error)
            }
        }
    }

    /// Hands every connection accepted from now on to `handler` and starts accepting; returns the listening
    /// channel, or throws why the socket could not be bound.
    func serve(_ handler: @escaping @Sendable (any Channel) -> EventLoopFuture<Void>) async throws -> any Channel {
        let channel = try await self.channel.get()
        self.acceptor.set(handler)
        try await channel.setOption(.autoRead, value: true).get()
        return channel
    }

    /// Closes the socket of a listener no server will serve (start-up failed after it was bound), and removes
    /// the socket file it created. Under socket activation the service manager keeps its socket.
    public func close() async {
        guard let channel = try? await self.channel.get() else { return }
        try? await channel.close()
        if case .path(let path, _) = self.source { unlink(path) }
    }
}
