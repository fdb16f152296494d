import ArgumentParser
import Glibc
import GuildHarness
import NIOCore
import NIOPosix

/// `guild-bench nio-echo` (hidden): swift-nio's own floor for the ping-latency benchmark. It serves NIO's echo
/// example (each read written back, flushed when the read is complete) on one event loop, on a Unix socket,
/// in a process of its own as guildd is, until it is terminated.
///
/// guildd's transport is NIO's; this shows what NIO itself costs a sequential round trip on this machine (the
/// epoll wake-up, the read into a buffer, the pipeline, the write), so the ping-latency rows can tell guildd's
/// own cost from its transport's.
struct NIOEcho: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nio-echo",
        abstract: "Internal: the ping-latency benchmark's NIO floor (an echo server on a NIO event loop).",
        shouldDisplay: false
    )

    @Option(help: "The Unix socket to serve on (a stale file is replaced).")
    var socket: String

    func run() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let channel = try await ServerBootstrap(group: group)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(Echo()) }
            }
            .bind(unixDomainSocketPath: self.socket, cleanupExistingSocketFile: true)
            .get()
        try await channel.closeFuture.get()
    }

    /// Starts `guild-bench nio-echo` on `socket` and waits until it accepts connections.
    static func launch(socket: String, logPath: String) async throws -> Daemon {
        try await GuildBench.launchServer("nio-echo", socket: socket, logPath: logPath)
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
