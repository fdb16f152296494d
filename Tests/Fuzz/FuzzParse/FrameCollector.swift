import NIOCore
import NIOExtras

/// The end of the fuzzed pipeline: records the frames the decoder delivers and whether it refused an
/// oversized frame, and closes the channel on an error as `ConnectionHandler` does. Like `ConnectionHandler`, it
/// also refuses a whole line over the limit (the decoder checks its limit only while a line is incomplete).
final class FrameCollector: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let limit: Int

    init(limit: Int) {
        self.limit = limit
    }

    private(set) var frames: [[UInt8]] = []
    private(set) var tooLarge = false
    private(set) var leftOver = false
    private(set) var otherErrors: [String] = []

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = self.unwrapInboundIn(data)
        guard !self.tooLarge else { return }
        guard buffer.readableBytes <= self.limit else {
            self.tooLarge = true
            context.close(promise: nil)
            return
        }
        self.frames.append(Array(buffer.readableBytesView))
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        switch error {
        case is ByteToMessageDecoderError.PayloadTooLargeError: self.tooLarge = true
        case is NIOExtrasErrors.LeftOverBytesError: self.leftOver = true
        default: self.otherErrors.append("\(error)")
        }
        context.close(promise: nil)
    }
}
