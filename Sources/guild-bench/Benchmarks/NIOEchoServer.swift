import NIOCore
import NIOPosix

/// swift-nio's own floor: an echo server in this process on one event loop of its own, built the way NIO's
/// echo example is (each read written back, flushed when the read is complete), on a Unix socket.
///
/// guildd's transport is NIO's; this baseline shows what NIO itself costs a sequential round trip on this
/// machine (the epoll wake-up, the read into a buffer, the pipeline, the write), so the ping-latency rows can
/// tell guildd's own cost from its transport's.
final class NIOEchoServer: Sendable {
    let path: String
    private let group: MultiThreadedEventLoopGroup
    private let channel: any Channel

    private init(path: String, group: MultiThreadedEventLoopGroup, channel: any Channel) {
        self.path = path
        self.group = group
        self.channel = channel
    }

    /// Binds `path` (replacing a stale file) and serves until ``stop()``.
    static func start(path: String) async throws -> NIOEchoServer {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        do {
            let channel = try await ServerBootstrap(group: group)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(Echo()) }
                }
                .bind(unixDomainSocketPath: path, cleanupExistingSocketFile: true)
                .get()
            return NIOEchoServer(path: path, group: group, channel: channel)
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
    }

    /// Stops listening and closes the connections still open.
    func stop() async {
        try? await self.channel.close()
        try? await self.group.shutdownGracefully()
    }

    /// Writes back what it reads.
    private final class Echo: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            context.write(data, promise: nil)
        }

        func channelReadComplete(context: ChannelHandlerContext) {
            context.flush()
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            context.close(promise: nil)
        }
    }
}
