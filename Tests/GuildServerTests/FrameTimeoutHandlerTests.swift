import NIOCore
import NIOEmbedded
import Testing

@testable import GuildServer

@Suite struct FrameTimeoutHandlerTests {
    /// Reads the bytes the handler wrote, as text ("" when it wrote nothing).
    private func written(_ channel: EmbeddedChannel) throws -> String {
        var text = ""
        while var buffer = try channel.readOutbound(as: ByteBuffer.self) { text += buffer.readString(length: buffer.readableBytes) ?? "" }
        return text
    }

    @Test func anUnfinishedLineTimesOut() throws {
        let channel = EmbeddedChannel(handler: FrameTimeoutHandler(timeout: .seconds(10)))
        try channel.connect(to: SocketAddress(unixDomainSocketPath: "/frame")).wait()
        try channel.writeInbound(channel.allocator.buffer(string: #"{"jsonrpc":"2.0","#))
        channel.embeddedEventLoop.advanceTime(by: .seconds(9))
        #expect(try self.written(channel).isEmpty)
        channel.embeddedEventLoop.advanceTime(by: .seconds(2))
        #expect(try self.written(channel).contains("FRAME_TIMEOUT"))
        #expect(!channel.isActive)
    }

    @Test func aHalfCloseStopsTheClockOfTheLastUnfinishedLine() throws {
        // The peer sent a last line without `\n` and shut down its side: that line is answered as a line
        // (ConnectionHandler), and the connection must not be timed out while its calls finish.
        let channel = EmbeddedChannel(handler: FrameTimeoutHandler(timeout: .seconds(10)))
        try channel.connect(to: SocketAddress(unixDomainSocketPath: "/frame")).wait()
        try channel.writeInbound(channel.allocator.buffer(string: #"{"jsonrpc":"2.0","id":1,"method":"system.ping"}"#))
        channel.pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        channel.embeddedEventLoop.advanceTime(by: .seconds(60))
        #expect(try self.written(channel).isEmpty)
        #expect(channel.isActive)
    }
}
