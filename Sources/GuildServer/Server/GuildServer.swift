import GuildCore
import GuildJSON
import GuildProtocol
import Logging
import NIOCore
import NIOExtras
import NIOPosix
import ServiceLifecycle
import Synchronization

/// The JSON-RPC server: listens on a Unix socket (bound or inherited), runs each connection as a child task,
/// and on graceful shutdown stops accepting, lets in-flight requests finish, and closes every connection.
public final class GuildServer: Service, Sendable {
    /// The configuration.
    public let configuration: ServerConfiguration
    let dispatcher: Dispatcher
    let connections: ConnectionRegistry
    /// Fires triggers' schedules while the server runs.
    let schedules: ScheduleRunner
    /// Keeps this host's presence lease while the server runs, and takes its things offline when it stops.
    let presenceLease: PresenceLeaseRunner
    let group: any EventLoopGroup
    private let logger: Logger
    private let ready: @Sendable () -> Void
    /// The socket to serve, if it was bound before the server was built; otherwise `run()` binds one.
    let prebound: ServerListener?
    /// The listening channel while the server runs.
    let listener = Mutex<(any Channel)?>(nil)
    /// Set once the server was asked to stop accepting (``stopAccepting()`` or graceful shutdown).
    private let stopRequested = Atomic<Bool>(false)

    /// Creates a server.
    /// - Parameters:
    ///   - prebound: the socket to serve, bound (or binding) on `group`; nil to bind `configuration.listen`
    ///     when the server runs.
    ///   - ready: called once the socket accepts connections (the daemon sends `READY=1` from it).
    init(
        configuration: ServerConfiguration,
        dispatcher: Dispatcher,
        connections: ConnectionRegistry,
        schedules: ScheduleRunner,
        presenceLease: PresenceLeaseRunner,
        prebound: ServerListener?,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        logger: Logger,
        ready: @escaping @Sendable () -> Void = {}
    ) {
        self.configuration = configuration
        self.prebound = prebound
        self.dispatcher = dispatcher
        self.connections = connections
        self.schedules = schedules
        self.presenceLease = presenceLease
        self.group = group
        self.logger = logger
        self.ready = ready
    }

    /// Connections open now.
    public var connectionCount: Int { self.connections.count }

    /// Since when no connection has been open (nil while one is, or before serving), for idle exit.
    public var idleSince: ContinuousClock.Instant? { self.connections.idleSince }

    /// Makes the request instruments of every method no request has called yet, so that the metrics list each
    /// method from the start (at zero). The daemon calls it once start-up is over: a method's instruments are
    /// otherwise made by its first request (see ``RequestMetrics``).
    public func prepareRequestMetrics() {
        self.dispatcher.metrics?.prepareAll()
    }

    /// Stops accepting connections; the ones open are served until their clients close them, and `run()`
    /// returns once they have. Under socket activation the service manager keeps the listening socket.
    public func stopAccepting() {
        self.stopRequested.store(true, ordering: .releasing)
        self.listener.withLock { $0 }?.close(promise: nil)
    }

    /// Why ``run()`` failed: the listening socket closed while the daemon was neither stopping nor idle-exiting
    /// (NIO closes it after an accept error it cannot recover from). The connections open then were drained
    /// first; under systemd the service restarts (or the next client starts it).
    public struct ListenerClosed: Error, CustomStringConvertible {
        public var description: String { "the listening socket closed unexpectedly; no new connection could be accepted" }
    }

    public func run() async throws {
        let (accepted, acceptedContinuation) = AsyncStream.makeStream(of: ConnectionState.self)
        let listening = self.prebound ?? ServerListener(self.configuration.listen, group: self.group, logger: self.logger)
        let serverChannel = try await listening.serve { channel in
            self.initialize(channel, accepted: acceptedContinuation)
        }
        // Whether the listening channel closed on its own: decided when it closes, since a graceful shutdown may be
        // asked for while its connections drain.
        let unexpectedClose = Atomic<Bool>(false)
        serverChannel.closeFuture.whenComplete { _ in
            if !self.stopRequested.load(ordering: .acquiring) {
                // Nothing can connect any more: finish what is in flight and stop, rather than serve the open
                // connections for as long as they last while every new client is refused. (Marked before the
                // stream ends, so that `run()` sees it however soon its connections are gone.)
                unexpectedClose.store(true, ordering: .releasing)
                self.logger.error("the listening socket closed unexpectedly: draining connections and stopping")
                self.connections.drainAll()
            }
            acceptedContinuation.finish()
        }
        self.listener.withLock { $0 = serverChannel }
        self.logger.info(
            "listening",
            metadata: ["listen": "\(self.configuration.listen)", "activation": "\(self.configuration.listen.activation.rawValue)"]
        )
        self.connections.serving()
        self.ready()
        await withDiscardingTaskGroup { serving in
            // The schedules fire while connections are served, and stop when the last connection is done.
            serving.addTask { await self.schedules.run() }
            serving.addTask { await self.presenceLease.run() }
            await withGracefulShutdownHandler {
                await withDiscardingTaskGroup { group in
                    for await connection in accepted {
                        group.addTask {
                            await connection.run(dispatcher: self.dispatcher)
                            self.connections.remove(connection.id, uid: connection.peer.uid)
                        }
                    }
                }
            } onGracefulShutdown: {
                self.logger.info("stopping: no new connections; finishing in-flight requests")
                self.stopRequested.store(true, ordering: .releasing)
                serverChannel.close(promise: nil)
                self.connections.drainAll()
            }
            serving.cancelAll()
        }
        if case .path(let path, _) = self.configuration.listen {
            unlink(path)
        }
        // Every connection is closed: this host's things go offline for every host now, not when its lease ends.
        await self.presenceLease.stop()
        if unexpectedClose.load(ordering: .acquiring) {
            throw ListenerClosed()
        }
        // Stopped accepting on its own (idle exit): a service returns only when its group stops it.
        if !Task.isShuttingDownGracefully {
            try? await gracefulShutdown()
        }
        self.logger.info("stopped")
    }

    private func initialize(
        _ channel: any Channel,
        accepted: AsyncStream<ConnectionState>.Continuation
    ) -> EventLoopFuture<Void> {
        channel.peerCredentials().flatMapThrowing { peer in
            let isAdmin = peer.uid == 0 || self.configuration.adminUIDs.contains(peer.uid)
            let reservation = self.connections.reserve(
                uid: peer.uid,
                isAdmin: isAdmin,
                limits: .init(
                    total: self.configuration.maximumConnections,
                    perUID: self.configuration.maximumConnectionsPerUID,
                    adminReserve: self.configuration.adminConnectionReserve
                )
            )
            let id: UInt64
            switch reservation {
            case .reserved(let reserved):
                id = reserved
            case .refused(let scope, let limit):
                self.refuse(channel, scope: scope, limit: limit)
                return
            }
            let state = ConnectionState(
                id: id,
                peer: peer,
                isAdmin: isAdmin,
                channel: channel,
                outputLimit: self.configuration.maximumOutputBytes,
                closeGrace: .nanoseconds(Int64(self.configuration.writeStallTimeoutSeconds * 1_000_000_000))
            )
            guard self.connections.add(state) else {
                self.connections.remove(id, uid: peer.uid)
                channel.close(promise: nil)
                return
            }
            do {
                try channel.pipeline.syncOperations.addHandlers([
                    FrameTimeoutHandler(timeout: .nanoseconds(Int64(self.configuration.frameTimeoutSeconds * 1_000_000_000))),
                    ConnectionHandler(state: state, dispatcher: self.dispatcher, configuration: self.configuration),
                ])
            } catch {
                self.connections.remove(id, uid: peer.uid)
                throw error
            }
            // A channel closed before it became active (the peer left during set-up) never sees channelInactive:
            // its close ends the connection's work all the same, so its task and registry slot always end.
            channel.closeFuture.whenComplete { _ in state.finishWork() }
            if case .terminated = accepted.yield(state) {
                // The server stopped accepting while this one was set up: nothing will run it.
                self.connections.remove(id, uid: peer.uid)
                channel.close(promise: nil)
            }
        }
    }

    private func refuse(_ channel: any Channel, scope: ConnectionRegistry.Scope, limit: Int) {
        let message =
            switch scope {
            case .daemon: "the daemon already serves \(limit) connections"
            case .uid: "this uid already holds \(limit) connections"
            }
        let error = RPCError(
            code: .tooManyConnections,
            message: message,
            reason: ErrorReason.tooManyConnections,
            extra: ["scope": .string(scope.rawValue), "limit": .int(Int64(limit))]
        )
        var bytes = Dispatcher.reply(.null, .failure(error)) ?? []
        bytes.append(UInt8(ascii: "\n"))
        channel.writeAndFlush(channel.allocator.buffer(bytes: bytes)).whenComplete { _ in
            channel.close(promise: nil)
        }
    }
}
