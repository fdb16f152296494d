import Logging
import NIOCore
import NIOPosix

/// Stops accepting for a moment when the process is out of descriptors, instead of spinning.
///
/// When `accept` fails with EMFILE or ENFILE the connection stays in the listen queue, so the level-triggered
/// listening socket is readable again at once. swift-nio's `AcceptBackoffHandler` only delays the next
/// `read()`: the read that failed stays pending, the socket stays registered for readability, and the event
/// loop goes on calling `accept` (measured: tens of thousands of failed `accept4` calls a second under
/// `strace`). This handler turns `autoRead` off, which unregisters the socket, and back on after `pause`;
/// queued clients are accepted then, once descriptors are free again. Any other error is logged: NIO closes the
/// listening socket after most of them, and the server then stops (``GuildServer/ListenerClosed``).
final class AcceptPauseHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = any Channel
    typealias InboundOut = any Channel

    private let pause: TimeAmount
    private let logger: Logger
    private var resume: Scheduled<Void>?

    init(pause: TimeAmount = .milliseconds(200), logger: Logger) {
        self.pause = pause
        self.logger = logger
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        switch (error as? IOError)?.errnoCode {
        case EMFILE, ENFILE, ENOBUFS, ENOMEM:
            guard self.resume == nil else { return }  // already paused
            let channel = context.channel
            channel.setOption(.autoRead, value: false).whenComplete { _ in }
            let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
            self.resume = context.eventLoop.scheduleTask(in: self.pause) {
                handler.value.resume = nil
                channel.setOption(.autoRead, value: true).whenComplete { _ in }
            }
        case ECONNABORTED:
            // A client that gave up while it waited in the backlog; the socket stays open.
            self.logger.debug("accept: connection aborted")
        default:
            self.logger.error("accepting a connection failed", metadata: ["error": "\(error)"])
            context.fireErrorCaught(error)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.resume?.cancel()
        self.resume = nil
        context.fireChannelInactive()
    }
}
