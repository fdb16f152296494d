import GuildCore
import GuildProtocol
import NIOCore
import Synchronization

/// One client connection: who is at the other end, its session, its requests in flight, and the stream of
/// work its task runs.
final class ConnectionState: Sendable {
    /// Work handed from the event loop to the connection's task.
    enum Work: Sendable {
        case single(RPCRequest)
        case batch([RPCFrame.Entry])
    }

    let id: UInt64
    let peer: PeerCredentials
    let isAdmin: Bool
    let channel: any Channel
    /// The most bytes the connection may have queued for writing before its subscriptions lag.
    let outputLimit: Int
    /// How long a closing connection waits for its last replies to be read before it is closed regardless.
    let closeGrace: TimeAmount
    let work: AsyncStream<Work>
    private let workContinuation: AsyncStream<Work>.Continuation
    private let boundSession = Mutex<(session: ResolvedSession, generation: UInt64)?>(nil)
    private let inFlightCount = Atomic<Int>(0)
    private let isDraining = Atomic<Bool>(false)
    private let isClosed = Atomic<Bool>(false)
    /// Replies and notifications written from the connection's tasks and the event hub.
    private let outbox: ConnectionOutbox
    private let subscriptions = Atomic<Int>(0)
    private let boundInstallation = Mutex<String?>(nil)
    private let closeHandlers = Mutex<[@Sendable () -> Void]?>([])

    /// Connection states alive now, open or not: a connection's state is freed once its channel has closed and
    /// its task has ended, so this returns to the open count however many connections were served
    /// (`guild_connection_states` in `system.metrics`; the churn tests read it).
    static var live: Int { Self.liveCount.load(ordering: .relaxed) }
    private static let liveCount = Atomic<Int>(0)

    init(
        id: UInt64,
        peer: PeerCredentials,
        isAdmin: Bool,
        channel: any Channel,
        outputLimit: Int,
        closeGrace: TimeAmount = .seconds(30)
    ) {
        Self.liveCount.add(1, ordering: .relaxed)
        self.id = id
        self.peer = peer
        self.isAdmin = isAdmin
        self.channel = channel
        self.outputLimit = outputLimit
        self.closeGrace = closeGrace
        self.outbox = ConnectionOutbox(channel: channel)
        (self.work, self.workContinuation) = AsyncStream.makeStream(of: Work.self)
    }

    deinit {
        Self.liveCount.subtract(1, ordering: .relaxed)
    }

    /// A bound session and the user's session generation it was last checked at (see `SessionGenerations`).
    typealias Binding = (session: ResolvedSession, generation: UInt64)

    /// The session bound with `session.authenticate` or a login, if any.
    var session: Binding? {
        get { self.boundSession.withLock { $0 } }
        set { self.boundSession.withLock { $0 = newValue } }
    }

    /// Replaces the binding only if it is still the one a request started with (the same token): a request
    /// that finishes after the connection was re-bound must not undo the newer binding.
    func replaceSession(_ old: Binding, with new: Binding?) {
        self.boundSession.withLock { bound in
            if bound?.session.tokenHash == old.session.tokenHash { bound = new }
        }
    }

    /// Unbinds the session a request started with (if it is still the bound one) and tells `observer`: the
    /// connection goes on as if it had never authenticated (its token was revoked, or its thing disabled).
    func unbind(_ old: Binding, observer: (any SessionBindingObserver)?) {
        self.replaceSession(old, with: nil)
        observer?.bound(nil, on: self)
    }

    /// The installation bound with `installation.register`, if any: command results for it reach this
    /// connection's subscriptions started afterwards.
    var installationID: String? {
        get { self.boundInstallation.withLock { $0 } }
        set { self.boundInstallation.withLock { $0 = newValue } }
    }

    /// Runs `body` once when the channel closes (at once if it has closed).
    func whenClosed(_ body: @escaping @Sendable () -> Void) {
        let closed = self.closeHandlers.withLock { handlers in
            guard handlers != nil else { return true }
            handlers!.append(body)
            return false
        }
        if closed { body() }
    }

    /// Requests (or batches) currently running as tasks.
    var inFlight: Int { self.inFlightCount.load(ordering: .relaxed) }

    /// Whether the connection is finishing its in-flight work before closing.
    var draining: Bool { self.isDraining.load(ordering: .relaxed) }

    /// Hands work to the connection's task; counts it as in flight.
    func submit(_ work: Work) {
        self.inFlightCount.add(1, ordering: .relaxed)
        self.workContinuation.yield(work)
    }

    // MARK: - Output

    /// Bytes handed to the channel and not yet written to the socket (replies and notifications).
    var queuedBytes: Int { self.outbox.queuedBytes }

    /// Whether `bytes` more would take the connection over its output budget.
    func wouldExceedOutputLimit(adding bytes: Int) -> Bool {
        self.queuedBytes + bytes > self.outputLimit
    }

    /// Writes and flushes `buffer`, counting its bytes as queued until the write completes; `completion` runs
    /// after that (on the channel's event loop), whether it succeeded or not.
    @discardableResult
    func send(_ buffer: ByteBuffer, completion: (@Sendable () -> Void)? = nil) -> EventLoopFuture<Void> {
        let promise = self.channel.eventLoop.makePromise(of: Void.self)
        self.outbox.append(capacity: buffer.readableBytes, completion: completion, promise: promise) { output in
            output.writeImmutableBuffer(buffer)
        }
        return promise.futureResult
    }

    /// Writes what `body` appends (about `capacity` bytes) with the connection's other output, without a
    /// buffer of its own; `completion` runs once it is written (or failed to be), on the event loop.
    func send(capacity: Int, completion: (@Sendable () -> Void)? = nil, _ body: (inout ByteBuffer) -> Void) {
        self.outbox.append(capacity: capacity, completion: completion, body)
    }

    // MARK: - Subscriptions

    /// Subscriptions the connection holds.
    var subscriptionCount: Int { self.subscriptions.load(ordering: .relaxed) }

    /// Counts a subscription opened (`delta` 1) or ended (-1).
    func subscriptionsChanged(by delta: Int) {
        self.subscriptions.add(delta, ordering: .relaxed)
    }

    // MARK: - Work

    /// Sends a reply line and marks one unit of work as finished.
    func complete(reply: [UInt8]?) {
        if let reply {
            self.send(capacity: reply.count + 1) { output in
                output.writeBytes(reply)
                output.writeInteger(UInt8(ascii: "\n"))
            }
        }
        // Sequentially consistent, with `drain()`: each side writes its own flag, then reads the other's; with
        // weaker orderings both may read the old values (a store may pass a later load), and neither would close
        // the connection.
        let remaining = self.inFlightCount.subtract(1, ordering: .sequentiallyConsistent).newValue
        if remaining == 0, self.isDraining.load(ordering: .sequentiallyConsistent) {
            self.closeWhenWritten()
        }
    }

    /// Stops taking new requests; closes once in-flight work is answered and written.
    func drain() {
        self.isDraining.store(true, ordering: .sequentiallyConsistent)
        if self.inFlightCount.load(ordering: .sequentiallyConsistent) == 0 {
            self.closeWhenWritten()
        }
    }

    /// Closes the channel once everything handed to it so far is written. A plain `close` fails the writes
    /// still pending, so a reply larger than the socket's buffer (or one behind it) was cut off when the peer
    /// read it after the close (FuzzDispatch: `rpc.discover` then an oversized frame lost FRAME_TOO_LARGE). A
    /// peer that does not read them is closed after `closeGrace` all the same.
    func closeWhenWritten() {
        let channel = self.channel
        let grace = channel.eventLoop.scheduleTask(in: self.closeGrace) { channel.close(promise: nil) }
        // An empty write: it completes after every write before it (the handler's and the outbox's).
        let close: @Sendable () -> Void = {
            grace.cancel()
            channel.close(promise: nil)
        }
        self.outbox.append(capacity: 0, completion: close) { _ in }
    }

    /// No more work will come (the channel closed). Work already handed over but not started is skipped: its
    /// replies could not be delivered, and a peer that pipelines calls and disconnects must not leave the daemon
    /// running them (a call that already started finishes). Called again (from the channel's close future), it
    /// does nothing.
    func finishWork() {
        self.isClosed.store(true, ordering: .relaxed)
        self.workContinuation.finish()
        let handlers = self.closeHandlers.withLock { handlers in
            defer { handlers = nil }
            return handlers ?? []
        }
        for handler in handlers { handler() }
    }

    /// Runs the connection's requests as child tasks until the channel closes and they are all answered.
    ///
    /// Requests run concurrently, except that one which changes the connection's session (log in,
    /// authenticate, log out, ...) finishes before any request after it starts: pipelining
    /// `session.authenticate` and a call that needs the session just works. A batch holding such a request
    /// runs its entries in order.
    ///
    /// Each request acts with the session bound when it arrived, read here in arrival order: a request sent
    /// before a `session.authenticate` runs as the earlier session even if its task starts after the change.
    func run(dispatcher: Dispatcher) async {
        await withDiscardingTaskGroup { group in
            for await work in self.work {
                if self.isClosed.load(ordering: .relaxed) {
                    self.inFlightCount.subtract(1, ordering: .relaxed)
                    continue
                }
                if let barrier = dispatcher.changesSession(work) {
                    await self.process(work, dispatcher: dispatcher, sequential: barrier, session: .live)
                } else {
                    let session = SessionAtArrival.captured(self.session)
                    group.addTask { await self.process(work, dispatcher: dispatcher, sequential: false, session: session) }
                }
            }
        }
        dispatcher.connectionClosed(self)
    }

    private func process(_ work: Work, dispatcher: Dispatcher, sequential: Bool, session: SessionAtArrival) async {
        guard !self.isClosed.load(ordering: .relaxed) else {
            self.complete(reply: nil)
            return
        }
        let afterReply = AfterReply()
        switch work {
        case .single(let request):
            self.complete(reply: await dispatcher.execute(request, on: self, session: session, afterReply: afterReply))
        case .batch(let entries):
            self.complete(
                reply: await dispatcher.executeBatch(entries, on: self, session: session, afterReply: afterReply, sequential: sequential)
            )
        }
        await afterReply.run()
    }
}

/// The session a request acts with.
enum SessionAtArrival: Sendable {
    /// The connection's binding when the request arrived (requests that may run concurrently).
    case captured(ConnectionState.Binding?)
    /// The binding when the request starts (requests that run in order, after every earlier one).
    case live
}
