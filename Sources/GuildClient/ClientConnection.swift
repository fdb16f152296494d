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

    private struct State {
        var waiters: [RequestID: Waiter] = [:]
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

    /// Registers a batch's waiters; false when the connection is already closed.
    func await(batch: BatchCollector, ids: [(RequestID, Int)]) -> Bool {
        self.state.withLock { state in
            guard !state.closed else { return false }
            for (id, index) in ids { state.waiters[id] = .batch(batch, index: index) }
            state.batches[ObjectIdentifier(batch)] = batch
            return true
        }
    }

    /// Forgets a waiter whose request could not be sent, and fails it.
    func fail(_ id: RequestID, with error: any Error) {
        let waiter = self.state.withLock { $0.waiters.removeValue(forKey: id) }
        switch waiter {
        case .single(let continuation), .subscribe(let continuation, _): continuation.resume(throwing: error)
        case .batch(let collector, _): collector.fail(error)
        case nil: break
        }
    }

    /// Delivers one message from the daemon.
    func receive(_ message: RPCIncoming) {
        switch message {
        case .notification(let method, let params):
            if self.route(method: method, params: params) { return }
            self.notificationContinuation.yield(ServerNotification(method: method, params: params))
        case .response(let id, let result):
            if id == .null {
                // An error the daemon could not tie to a request: it refused a whole batch. The daemon refuses
                // a batch as soon as it reads it, before any of its entries could be answered, so it is the
                // oldest batch that has no reply yet.
                let batch = self.state.withLock { state in
                    state.batches.values.filter { !$0.hasReplies }.min(by: { $0.sequence < $1.sequence })
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
                return
            }
            let waiter = self.state.withLock { $0.waiters.removeValue(forKey: id) }
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
                if collector.fill(index, result) {
                    _ = self.state.withLock { $0.batches.removeValue(forKey: ObjectIdentifier(collector)) }
                }
            case nil:
                break
            }
        }
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
            route.finish(throwing: SubscriptionEnd.lagged(lastSeq: ended.lastSeq))
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

/// Collects the replies of one batch, in the order of its entries.
final class BatchCollector: Sendable {
    private struct State {
        var replies: [Result<[UInt8], RPCError>?]
        var remaining: Int
        var continuation: CheckedContinuation<[Result<[UInt8], RPCError>?], any Error>?
        var done = false
    }

    private static let counter = Atomic<UInt64>(0)
    let sequence: UInt64
    private let state: Mutex<State>

    init(count: Int, expected: Int, continuation: CheckedContinuation<[Result<[UInt8], RPCError>?], any Error>) {
        self.sequence = Self.counter.add(1, ordering: .relaxed).newValue
        self.state = Mutex(State(replies: Array(repeating: nil, count: count), remaining: expected, continuation: continuation))
    }

    /// Whether any entry has been answered.
    var hasReplies: Bool {
        self.state.withLock { state in state.replies.contains { $0 != nil } }
    }

    /// Records a reply; true when the batch is complete.
    func fill(_ index: Int, _ reply: Result<[UInt8], RPCError>) -> Bool {
        let finished: (CheckedContinuation<[Result<[UInt8], RPCError>?], any Error>, [Result<[UInt8], RPCError>?])? =
            self.state.withLock { state in
                guard !state.done else { return nil }
                state.replies[index] = reply
                state.remaining -= 1
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
final class ClientHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer

    private let connection: ClientConnection

    init(connection: ClientConnection) {
        self.connection = connection
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let line = self.unwrapInboundIn(data)
        let messages = line.withUnsafeReadableBytes { bytes in
            (try? RPCIncoming.parse(bytes)) ?? []
        }
        for message in messages { self.connection.receive(message) }
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.connection.close()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
