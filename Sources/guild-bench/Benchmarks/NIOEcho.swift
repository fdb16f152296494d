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
        let echo = try Daemon.launch(
            name: "guild-bench nio-echo",
            executable: GuildBench.executablePath,
            arguments: ["nio-echo", "--socket", socket],
            socketPath: socket,
            logPath: logPath
        )
        do {
            // The file appears when the socket is bound, a moment before it listens.
            let deadline = ContinuousClock.now + .seconds(10)
            while true {
                try echo.checkRunning()
                if let fd = try? RawSocket.connect(socket) {
                    _ = close(fd)
                    return echo
                }
                guard ContinuousClock.now < deadline else { throw DaemonError("guild-bench nio-echo: \(socket) not listening after 10 s") }
                try await Task.sleep(for: .milliseconds(2))
            }
        } catch {
            await echo.stop()
            throw error
        }
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
