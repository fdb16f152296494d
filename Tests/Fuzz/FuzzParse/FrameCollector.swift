import NIOCore
import NIOExtras

/// The end of the fuzzed pipeline: records the frames the decoder delivers and whether it refused an
/// oversized frame, and closes the channel on an error as `ConnectionHandler` does.
final class FrameCollector: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private(set) var frames: [[UInt8]] = []
    private(set) var tooLarge = false
    private(set) var leftOver = false
    private(set) var otherErrors: [String] = []

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = self.unwrapInboundIn(data)
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
