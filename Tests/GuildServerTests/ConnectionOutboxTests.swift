import NIOCore
import NIOEmbedded
import Synchronization
import Testing

@testable import GuildServer

/// Counts completions run by the outbox (they run on the event loop, after the write).
private final class Completions: Sendable {
    let count = Atomic<Int>(0)

    func record() { self.count.add(1, ordering: .relaxed) }
}

struct ConnectionOutboxTests {
    @Test
    func outputAppendedBeforeTheLoopsTurnLeavesInOneWriteInOrder() throws {
        let channel = EmbeddedChannel()
        let outbox = ConnectionOutbox(channel: channel)
        let completions = Completions()
        for line in ["a\n", "bb\n", "ccc\n"] {
            outbox.append(capacity: line.utf8.count, completion: { completions.record() }) { $0.writeString(line) }
        }
        // Nothing is written until the event loop takes its turn; the bytes count as queued meanwhile.
        #expect(try channel.readOutbound(as: ByteBuffer.self) == nil)
        #expect(outbox.queuedBytes == 9)
        #expect(completions.count.load(ordering: .relaxed) == 0)

        channel.embeddedEventLoop.run()
        let written = try #require(try channel.readOutbound(as: ByteBuffer.self))
        #expect(String(buffer: written) == "a\nbb\nccc\n")
        #expect(try channel.readOutbound(as: ByteBuffer.self) == nil)
        #expect(outbox.queuedBytes == 0)
        #expect(completions.count.load(ordering: .relaxed) == 3)
        _ = try channel.finish()
    }

    @Test
    func outputAppendedAfterAFlushIsWrittenOnTheNextTurn() throws {
        let channel = EmbeddedChannel()
        let outbox = ConnectionOutbox(channel: channel)
        outbox.append(capacity: 2) { $0.writeString("1\n") }
        channel.embeddedEventLoop.run()
        outbox.append(capacity: 2) { $0.writeString("2\n") }
        let promise = channel.eventLoop.makePromise(of: Void.self)
        outbox.append(capacity: 2, promise: promise) { $0.writeString("3\n") }
        channel.embeddedEventLoop.run()
        #expect(try channel.readOutbound(as: ByteBuffer.self).map { String(buffer: $0) } == "1\n")
        #expect(try channel.readOutbound(as: ByteBuffer.self).map { String(buffer: $0) } == "2\n3\n")
        try promise.futureResult.wait()
        _ = try channel.finish()
    }

    @Test
    func connectionsOfOneLoopAreFlushedInTheSameTurn() throws {
        let loop = EmbeddedEventLoop()
        let first = EmbeddedChannel(loop: loop)
        let second = EmbeddedChannel(loop: loop)
        let outboxes = [ConnectionOutbox(channel: first), ConnectionOutbox(channel: second)]
        for (index, outbox) in outboxes.enumerated() {
            outbox.append(capacity: 8) { $0.writeString("event \(index)\n") }
        }
        loop.run()
        #expect(try first.readOutbound(as: ByteBuffer.self).map { String(buffer: $0) } == "event 0\n")
        #expect(try second.readOutbound(as: ByteBuffer.self).map { String(buffer: $0) } == "event 1\n")
        _ = try first.finish()
        _ = try second.finish()
    }

    @Test
    func outputForAClosedConnectionIsReleasedAndItsWaitersFail() throws {
        let channel = EmbeddedChannel()
        let outbox = ConnectionOutbox(channel: channel)
        try channel.close().wait()
        let completions = Completions()
        let promise = channel.eventLoop.makePromise(of: Void.self)
        outbox.append(capacity: 6, completion: { completions.record() }, promise: promise) { $0.writeString("lost\n") }
        channel.embeddedEventLoop.run()
        #expect(outbox.queuedBytes == 0)
        #expect(completions.count.load(ordering: .relaxed) == 1)
        #expect(throws: (any Error).self) { try promise.futureResult.wait() }
    }
}
