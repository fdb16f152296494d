import GuildProtocol
import NIOCore
import Synchronization

/// Matches replies to waiting calls and forwards notifications; shared by the channel handler and the client.
final class ClientConnection: Sendable {
    typealias Reply = Result<[UInt8], RPCError>

    typealias EventContinuation = AsyncThrowingStream<GuildEvent, any Error>.Continuation

    private enum Waiter {
        case single(UnsafeContinuation<Reply, any Error>)
        /// A subscribe call: its event route is installed (on the event loop) before the reply is delivered,
        /// so no event of the subscription can arrive unrouted.
        case subscribe(UnsafeContinuation<Reply, any Error>, EventContinuation)
        case batch(BatchCollector, index: Int)
    }

    /// Pipelined calls (``GuildClient/calls(_:_:)``) waiting for their replies: the ids `first ..< first + count`,
    /// whose replies are entries `id - first` of `collector`. One range instead of an entry per id in `waiters`:
    /// no hashing of each id when the calls are sent and when their replies come in.
    struct Pipeline {
        var first: Int
        var count: Int
        var collector: BatchCollector

        /// The collector's entry for the reply with id `number`, when the id is one of these calls'.
        func entry(for number: Int) -> Int? {
            number >= self.first && number - self.first < self.count ? number - self.first : nil
        }
    }

    private struct State {
        var waiters: [RequestID: Waiter] = [:]
        var pipelines: [Pipeline] = []
        var batches: [ObjectIdentifier: BatchCollector] = [:]
        var routes: [String: EventContinuation] = [:]
        var closed = false
    }

    private let state = Mutex(State())
    let notifications: AsyncStream<ServerNotification>
    private let notificationContinuation: AsyncStream<ServerNotification>.Continuation

    init() {
        (self.notifications, self.notificationContinuation) = AsyncStream.makeStream(
            of: ServerNotification.self,
            bufferingPolicy: .unbounded
        )
    }

    /// Registers a waiter for `id`; false when the connection is already closed.
    func await(_ id: RequestID, _ continuation: UnsafeContinuation<Reply, any Error>) -> Bool {
        self.state.withLock { state in
            guard !state.closed else { return false }
            state.waiters[id] = .single(continuation)
            return true
        }
    }

    /// Registers a subscribe call's waiter and its event stream; false when the connection is closed.
    func await(subscribe id: RequestID, _ continuation: UnsafeContinuation<Reply, any Error>, events: EventContinuation) -> Bool {
        self.state.withLock { state in
            guard !state.closed else { return false }
            state.waiters[id] = .subscribe(continuation, events)
            return true
        }
    }

    /// Stops routing a subscription's events and finishes its stream.
    func finishRoute(_ subscription: String) {
        self.state.withLock { $0.routes.removeValue(forKey: subscription) }?.finish()
    }

    /// Registers the collector of pipelined calls with the ids `first ..< first + count` (entry `id - first`);
    /// false when the connection is already closed.
    func await(pipeline collector: BatchCollector, first: Int, count: Int) -> Bool {
        self.state.withLock { state in
            guard !state.closed else { return false }
            state.pipelines.append(Pipeline(first: first, count: count, collector: collector))
            state.batches[ObjectIdentifier(collector)] = collector
            return true
        }
    }

    /// Registers the waiters of a batch; false when the connection is already closed.
    func await(batch: BatchCollector, ids: [(RequestID, Int)]) -> Bool {
        self.state.withLock { state in
            guard !state.closed else { return false }
            for (id, index) in ids { state.waiters[id] = .batch(batch, index: index) }
            state.batches[ObjectIdentifier(batch)] = batch
            return true
        }
    }

    /// Forgets a collector that has every reply.
    func finished(_ collector: BatchCollector) {
        self.state.withLock { state in
            state.batches.removeValue(forKey: ObjectIdentifier(collector))
            state.pipelines.removeAll { $0.collector === collector }
        }
    }

    /// Delivers one message from the daemon, except a reply of pipelined calls: that is returned with their
    /// range of ids (`number` is the reply's id as an integer, when it is one), for the channel handler to
    /// hand to their collector with the other replies of the same read.
    func receive(_ message: RPCIncoming, number: Int?) -> Pipeline? {
        switch message {
        case .notification(let method, let params):
            if self.route(method: method, params: params) { return nil }
            self.notificationContinuation.yield(ServerNotification(method: method, params: params))
        case .response(let id, let result):
            if id == .null {
                // An error the daemon could not tie to a request: it refused a whole batch. The daemon refuses
                // a batch as soon as it reads it, before any of its entries could be answered, so it is the
                // oldest batch that has no reply yet.
                let batch = self.state.withLock { state in
                    state.batches.values.filter { $0.isBatch && !$0.hasReplies }.min(by: { $0.sequence < $1.sequence })
                }
                if let batch, case .failure(let error) = result {
                    self.state.withLock { state in
                        state.batches[ObjectIdentifier(batch)] = nil
                        state.waiters = state.waiters.filter {
                            if case .batch(let owner, _) = $0.value { return owner !== batch }
                            return true
                        }
                    }
                    batch.fail(error)
                }
                return nil
            }
            let (pipeline, waiter) = self.state.withLock { state -> (Pipeline?, Waiter?) in
                if !state.pipelines.isEmpty, let number,
                    let pipeline = state.pipelines.first(where: { $0.entry(for: number) != nil })
                {
                    return (pipeline, nil)
                }
                return (nil, state.waiters.removeValue(forKey: id))
            }
            if let pipeline { return pipeline }
            switch waiter {
            case .single(let continuation):
                continuation.resume(returning: result)
            case .subscribe(let continuation, let events):
                if case .success(let bytes) = result,
                    let subscribed = try? RPCCoding.decode(EventMethods.Subscribe.Result.self, from: bytes)
                {
                    self.state.withLock { $0.routes[subscribed.subscription] = events }
                } else {
                    events.finish()
                }
                continuation.resume(returning: result)
            case .batch(let collector, let index):
                if collector.fill(CollectionOfOne((index, result))) { self.finished(collector) }
            case nil:
                break
            }
        }
        return nil
    }

    /// Delivers `events.event` and `events.ended` to their subscription's stream; false for others.
    private func route(method: String, params: [UInt8]?) -> Bool {
        guard let params else { return false }
        switch method {
        case EventNotification.method:
            guard let notification = try? RPCCoding.decode(EventNotification.self, from: params),
                let route = self.state.withLock({ $0.routes[notification.subscription] })
            else { return false }
            route.yield(notification.event)
            return true
        case SubscriptionEnded.method:
            guard let ended = try? RPCCoding.decode(SubscriptionEnded.self, from: params),
                let route = self.state.withLock({ $0.routes.removeValue(forKey: ended.subscription) })
            else { return false }
            route.finish(
                throwing: ended.reason == SubscriptionEnded.thingDisabled
                    ? SubscriptionEnd.thingDisabled(lastSeq: ended.lastSeq) : SubscriptionEnd.lagged(lastSeq: ended.lastSeq)
            )
            return true
        default:
            return false
        }
    }

    /// The connection is gone: every waiter fails, subscriptions and the notification stream end.
    func close() {
        let (waiters, batches, routes) = self.state.withLock { state in
            state.closed = true
            defer {
                state.waiters = [:]
                state.pipelines = []
                state.batches = [:]
                state.routes = [:]
            }
            return (Array(state.waiters.values), Array(state.batches.values), Array(state.routes.values))
        }
        for route in routes { route.finish(throwing: SubscriptionEnd.disconnected) }
        for waiter in waiters {
            switch waiter {
            case .single(let continuation):
                continuation.resume(throwing: GuildClientError.disconnected)
            case .subscribe(let continuation, let events):
                events.finish(throwing: SubscriptionEnd.disconnected)
                continuation.resume(throwing: GuildClientError.disconnected)
            case .batch:
                break
            }
        }
        for batch in batches { batch.fail(GuildClientError.disconnected) }
        self.notificationContinuation.finish()
    }
}

/// Collects the replies of one batch, or of calls sent together (``GuildClient/calls(_:_:)``), in the order of
/// their entries.
final class BatchCollector: Sendable {
    private struct State {
        var replies: [Result<[UInt8], RPCError>?]
        var remaining: Int
        var continuation: CheckedContinuation<[Result<[UInt8], RPCError>?], any Error>?
        var done = false
    }

    private static let counter = Atomic<UInt64>(0)
    let sequence: UInt64
    /// Whether the entries went as one JSON-RPC batch, which the daemon may refuse as a whole (with one error
    /// whose id is null); calls sent as lines of their own are each answered.
    let isBatch: Bool
    private let state: Mutex<State>

    init(count: Int, expected: Int, isBatch: Bool, continuation: CheckedContinuation<[Result<[UInt8], RPCError>?], any Error>) {
        self.sequence = Self.counter.add(1, ordering: .relaxed).newValue
        self.isBatch = isBatch
        self.state = Mutex(State(replies: Array(repeating: nil, count: count), remaining: expected, continuation: continuation))
    }

    /// Whether any entry has been answered.
    var hasReplies: Bool {
        self.state.withLock { state in state.replies.contains { $0 != nil } }
    }

    /// Records replies; true when the batch is complete. A second reply for an entry (a daemon repeating an
    /// id) is ignored.
    func fill(_ entries: some Collection<(index: Int, reply: Result<[UInt8], RPCError>)>) -> Bool {
        let finished: (CheckedContinuation<[Result<[UInt8], RPCError>?], any Error>, [Result<[UInt8], RPCError>?])? =
            self.state.withLock { state in
                guard !state.done else { return nil }
                for (index, reply) in entries where state.replies[index] == nil {
                    state.replies[index] = reply
                    state.remaining -= 1
                }
                guard state.remaining == 0, let continuation = state.continuation else { return nil }
                state.done = true
                return (continuation, state.replies)
            }
        if let (continuation, replies) = finished {
            continuation.resume(returning: replies)
            return true
        }
        return false
    }

    /// Fails the whole batch.
    func fail(_ error: any Error) {
        let continuation = self.state.withLock { state -> CheckedContinuation<[Result<[UInt8], RPCError>?], any Error>? in
            guard !state.done else { return nil }
            state.done = true
            return state.continuation
        }
        continuation?.resume(throwing: error)
    }
}

/// Reads lines from the daemon and hands them to the connection.
final class ClientHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let connection: ClientConnection
    /// Cuts reads into lines (the daemon's framing), each read in place.
    private var framer: LineFramer
    /// The pipelined calls the last reply belonged to: the replies that follow are usually theirs too, and
    /// go to their collector without a lookup in the connection's table.
    private var pipeline: ClientConnection.Pipeline?
    /// Replies of `pipeline` read but not yet handed to its collector: all of a read's go together.
    private var entries: [(index: Int, reply: ClientConnection.Reply)] = []

    init(connection: ClientConnection, maximumFrameBytes: Int) {
        self.connection = connection
        self.framer = LineFramer(maximumLineBytes: maximumFrameBytes)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let bytes = self.unwrapInboundIn(data)
        let outcome = bytes.withUnsafeReadableBytes { read in
            self.framer.feed(read) { line in
                // A line that is not JSON-RPC is skipped; its call, if any, fails when the connection closes.
                try? RPCIncoming.parse(line) { self.receive($0) }
                return .proceed
            }
        }
        self.fillPipeline()
        // A reply line over the limit: the connection closes, and every waiting call fails.
        if outcome == .tooLarge { context.close(promise: nil) }
    }

    /// Keeps a reply of the current pipelined calls for their collector; hands anything else to the connection.
    private func receive(_ message: RPCIncoming) {
        // `intValue` takes only the digits the client wrote (`7`, not `7.0`; JSON has no `07` or `+7`).
        guard case .response(let id, let result) = message, let number = id.intValue else {
            _ = self.connection.receive(message, number: nil)
            return
        }
        if let entry = self.pipeline?.entry(for: number) {
            self.entries.append((entry, result))
        } else if let pipeline = self.connection.receive(message, number: number), let entry = pipeline.entry(for: number) {
            self.fillPipeline()
            self.pipeline = pipeline
            self.entries.append((entry, result))
        }
    }

    /// Hands the replies kept for the current pipelined calls to their collector.
    private func fillPipeline() {
        guard let pipeline = self.pipeline, !self.entries.isEmpty else { return }
        if pipeline.collector.fill(self.entries) {
            self.connection.finished(pipeline.collector)
            self.pipeline = nil
        }
        self.entries.removeAll(keepingCapacity: self.entries.capacity <= 1024)
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.connection.close()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}

/// Requests from callers on any thread, gathered until the connection's event loop writes them: however many
/// calls are made meanwhile, they cost one `write` of the socket and at most one wake-up of the loop, and no
/// future or promise each.
final class RequestOutbox: Sendable {
    private struct Pending {
        var bytes: [UInt8] = []
        /// Completed once the bytes gathered with them are written (or failed to be).
        var promises: [EventLoopPromise<Void>] = []
        /// Whether a flush is queued on the event loop.
        var scheduled = false
    }

    private let channel: any Channel
    private let pending = Mutex(Pending())

    init(channel: any Channel) {
        self.channel = channel
    }

    /// Appends what `body` writes to the bytes the next flush writes; `promise` completes with that write.
    func send(promise: EventLoopPromise<Void>? = nil, _ body: (inout [UInt8]) -> Void) {
        let schedule = self.pending.withLock { pending -> Bool in
            body(&pending.bytes)
            if let promise { pending.promises.append(promise) }
            guard !pending.scheduled else { return false }
            pending.scheduled = true
            return true
        }
        if schedule { self.channel.eventLoop.execute { self.flush() } }
    }

    /// Writes what was gathered (on the event loop). A write that fails closes the channel, and closing fails
    /// every call still waiting (``ClientConnection/close()``): no call waits for a reply to a lost request.
    private func flush() {
        let (buffer, promises) = self.pending.withLock { pending in
            defer {
                pending.bytes.removeAll(keepingCapacity: pending.bytes.capacity <= 64 * 1024)
                pending.promises = []
                pending.scheduled = false
            }
            return (self.channel.allocator.buffer(bytes: pending.bytes), pending.promises)
        }
        guard buffer.readableBytes > 0 else { return }
        let channel = self.channel
        let written = channel.eventLoop.makePromise(of: Void.self)
        written.futureResult.whenComplete { result in
            if case .failure = result { channel.close(promise: nil) }
            for promise in promises { promise.completeWith(result) }
        }
        channel.writeAndFlush(buffer, promise: written)
    }
}
