import NIOCore
import Synchronization

/// Bytes handed to one connection from any thread (task replies, event notifications), gathered until its event
/// loop writes them: however many arrive meanwhile, they cost one `write` of the socket and one wake-up of the
/// loop (see ``LoopFlusher``), not one of each per reply.
final class ConnectionOutbox: Sendable {
    private struct Pending {
        var bytes: ByteBuffer?
        /// Run once the bytes gathered with them are written (or failed to be).
        var completions: [@Sendable () -> Void] = []
        var promises: [EventLoopPromise<Void>] = []
        /// Whether a flush is due on the event loop (the connection is in its loop's flusher).
        var scheduled = false
    }

    private let channel: any Channel
    private let allocator: ByteBufferAllocator
    private let flusher: LoopFlusher
    private let pending = Mutex(Pending())
    private let queued = Atomic<Int>(0)

    init(channel: any Channel) {
        self.channel = channel
        self.allocator = channel.allocator
        self.flusher = LoopFlusher.of(channel.eventLoop)
    }

    /// Bytes handed over and not yet written to the socket.
    var queuedBytes: Int { self.queued.load(ordering: .relaxed) }

    /// Appends bytes written by `body` (at most about `capacity` of them); they are written on the next flush.
    /// `completion` runs on the event loop once they are written, or failed to be; `promise` is completed then.
    func append(
        capacity: Int,
        completion: (@Sendable () -> Void)? = nil,
        promise: EventLoopPromise<Void>? = nil,
        _ body: (inout ByteBuffer) -> Void
    ) {
        let schedule = self.pending.withLock { pending -> Bool in
            let before: Int
            if pending.bytes == nil {
                pending.bytes = self.allocator.buffer(capacity: max(capacity, 1024))
                before = 0
            } else {
                before = pending.bytes!.writerIndex
            }
            body(&pending.bytes!)
            self.queued.add(pending.bytes!.writerIndex - before, ordering: .relaxed)
            if let completion { pending.completions.append(completion) }
            if let promise { pending.promises.append(promise) }
            guard !pending.scheduled else { return false }
            pending.scheduled = true
            return true
        }
        if schedule { self.flusher.schedule(self) }
    }

    /// Writes what was gathered (on the event loop).
    func flush() {
        let (bytes, completions, promises) = self.pending.withLock { pending in
            defer { pending = Pending() }
            return (pending.bytes, pending.completions, pending.promises)
        }
        guard let bytes else { return }
        let count = bytes.readableBytes
        let written = self.channel.eventLoop.makePromise(of: Void.self)
        written.futureResult.whenComplete { result in
            self.queued.subtract(count, ordering: .relaxed)
            for completion in completions { completion() }
            for promise in promises { promise.completeWith(result) }
        }
        self.channel.writeAndFlush(bytes, promise: written)
    }
}

/// Flushes the outboxes of one event loop's connections: the first outbox with something to write asks the
/// loop for one turn, and that turn writes every outbox filled meanwhile (a commit that completes replies on
/// many connections, or an event fanned out to many subscribers, wakes each loop once).
final class LoopFlusher: Sendable {
    private let eventLoop: any EventLoop
    private let due = Mutex<[ConnectionOutbox]>([])

    private init(eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    /// Queues an outbox for the loop's next flush.
    func schedule(_ outbox: ConnectionOutbox) {
        let first = self.due.withLock { due in
            due.append(outbox)
            return due.count == 1
        }
        if first { self.eventLoop.execute { self.flush() } }
    }

    private func flush() {
        let due = self.due.withLock { due in
            defer { due = [] }
            return due
        }
        for outbox in due { outbox.flush() }
    }

    private final class Weak: Sendable {
        nonisolated(unsafe) weak var flusher: LoopFlusher?
        init(_ flusher: LoopFlusher) { self.flusher = flusher }
    }

    private static let flushers = Mutex<[ObjectIdentifier: Weak]>([:])

    /// The flusher of `eventLoop` (one per loop, kept while its connections are).
    static func of(_ eventLoop: any EventLoop) -> LoopFlusher {
        self.flushers.withLock { flushers in
            let key = ObjectIdentifier(eventLoop)
            if let flusher = flushers[key]?.flusher { return flusher }
            flushers = flushers.filter { $0.value.flusher != nil }
            let flusher = LoopFlusher(eventLoop: eventLoop)
            flushers[key] = Weak(flusher)
            return flusher
        }
    }
}
