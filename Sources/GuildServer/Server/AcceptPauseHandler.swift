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
/// queued clients are accepted then, once descriptors are free again. While paused it gives up the process's
/// ``DescriptorReserve``, so the runtime's own `open`s still find a slot, and takes it back before accepting.
/// Any other error is logged: NIO closes the listening socket after most of them, and the server then stops
/// (``GuildServer/ListenerClosed``).
final class AcceptPauseHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = any Channel
    typealias InboundOut = any Channel

    private let pause: TimeAmount
    private let logger: Logger
    private let reserve: DescriptorReserve
    private var resume: Scheduled<Void>?

    init(pause: TimeAmount = .milliseconds(200), reserve: DescriptorReserve = .shared, logger: Logger) {
        self.pause = pause
        self.reserve = reserve
        self.logger = logger
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        switch (error as? IOError)?.errnoCode {
        case EMFILE, ENFILE, ENOBUFS, ENOMEM:
            guard self.resume == nil else { return }  // already paused
            // A free slot for the runtime while accepting stands still (see DescriptorReserve).
            self.reserve.release()
            context.channel.setOption(.autoRead, value: false).whenComplete { _ in }
            self.scheduleResume(on: context.eventLoop, channel: context.channel)
        case ECONNABORTED:
            // A client that gave up while it waited in the backlog; the socket stays open.
            self.logger.debug("accept: connection aborted")
        default:
            self.logger.error("accepting a connection failed", metadata: ["error": "\(error)"])
            context.fireErrorCaught(error)
        }
    }

    /// After `pause`, accepting starts again once the reserve is held again; until then it waits another pause.
    private func scheduleResume(on eventLoop: any EventLoop, channel: any Channel) {
        let handler = NIOLoopBound(self, eventLoop: eventLoop)
        self.resume = eventLoop.scheduleTask(in: self.pause) {
            let handler = handler.value
            guard handler.reserve.restore() else {
                handler.scheduleResume(on: eventLoop, channel: channel)
                return
            }
            handler.resume = nil
            channel.setOption(.autoRead, value: true).whenComplete { _ in }
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.resume?.cancel()
        self.resume = nil
        context.fireChannelInactive()
    }
}
