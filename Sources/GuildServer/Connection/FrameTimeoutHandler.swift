import GuildProtocol
import NIOCore

/// Bounds how long one line may take to arrive: once a line's first byte is read, the rest must follow
/// within `timeout`, or the connection gets -32600 FRAME_TIMEOUT (`"id": null`) and is closed. Together
/// with the frame size limit this bounds what a peer that trickles, or never ends, a line can hold.
///
/// It sits before `ConnectionHandler` (which cuts the lines) and only looks at the bytes going by: a read
/// that ends in a newline leaves no partial line; one that does not starts the clock if no partial line was
/// pending, or restarts it if the read finished the pending line and began another.
final class FrameTimeoutHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let timeout: TimeAmount
    private var timer: Scheduled<Void>?

    init(timeout: TimeAmount) {
        self.timeout = timeout
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let view = self.unwrapInboundIn(data).readableBytesView
        if let last = view.last {
            let newline = UInt8(ascii: "\n")
            if last == newline {
                self.timer?.cancel()
                self.timer = nil
            } else if self.timer == nil || view.contains(newline) {
                self.start(context: context)
            }
        }
        context.fireChannelRead(data)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed {
            // The peer sent all it will: an unfinished last line is answered as a line, never waited for.
            self.timer?.cancel()
            self.timer = nil
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.timer?.cancel()
        self.timer = nil
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.timer?.cancel()
    }

    private func start(context: ChannelHandlerContext) {
        self.timer?.cancel()
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        let seconds = Double(self.timeout.nanoseconds) / 1e9
        self.timer = context.eventLoop.scheduleTask(in: self.timeout) {
            let context = loopBound.value
            let error = RPCError.invalidRequest(
                "a line took longer than \(seconds) s to arrive; the connection is closed",
                reason: ErrorReason.frameTimeout
            )
            var bytes = Dispatcher.reply(.null, .failure(error)) ?? []
            bytes.append(UInt8(ascii: "\n"))
            let channel = context.channel
            context.writeAndFlush(NIOAny(channel.allocator.buffer(bytes: bytes))).whenComplete { _ in
                channel.close(promise: nil)
            }
        }
    }
}
