import GuildCore
import GuildProtocol
import Logging

/// Runs requests: finds the method, enforces who may call it, decodes params, runs the handler, and turns
/// every outcome into exactly one reply (none for notifications).
public final class Dispatcher: Sendable {
    /// The methods served.
    public let registry: MethodRegistry
    let users: UserService
    let hub: EventHub?
    let logger: Logger
    /// Bounds on expensive calls.
    let admission: Admission
    /// The most bytes one batch's replies may take together.
    let maximumBatchReplyBytes: Int
    /// The most entries of one batch that run at once.
    let batchConcurrency: Int
    /// Request counts, latencies and errors (see ``RequestMetrics``); nil: not measured.
    let metrics: RequestMetrics?
    /// The event loops' own readers for immediate reads; nil: they always run as tasks.
    let immediateReads: ImmediateReads?
    /// Told of every session binding (things' presence).
    let bindingObserver: (any SessionBindingObserver)?

    /// Creates a dispatcher.
    init(
        registry: MethodRegistry,
        users: UserService,
        hub: EventHub?,
        logger: Logger,
        admission: Admission,
        maximumBatchReplyBytes: Int,
        batchConcurrency: Int = 64,
        metrics: RequestMetrics? = nil,
        immediateReads: ImmediateReads? = nil,
        bindingObserver: (any SessionBindingObserver)? = nil
    ) {
        var registry = registry
        if let metrics { registry.attach(metrics) }
        self.registry = registry
        self.users = users
        self.hub = hub
        self.logger = logger
        self.admission = admission
        self.maximumBatchReplyBytes = maximumBatchReplyBytes
        self.batchConcurrency = batchConcurrency
        self.metrics = metrics
        self.immediateReads = immediateReads
        self.bindingObserver = bindingObserver
    }

    /// What running a request on the event loop gave.
    enum InlineOutcome {
        /// The outcome, to be answered to `id` (nil: a notification, never answered).
        case answered(id: RequestID?, Result<[UInt8], RPCError>)
        /// The method must run as a task.
        case needsTask
    }

    /// Runs a request on the event loop when it can (unknown method, inline method, immediate read), or says it
    /// needs a task.
    func runInline(_ request: RPCRequest, on connection: ConnectionState) -> InlineOutcome {
        let started = self.metrics == nil ? 0 : RequestMetrics.now()
        guard let entry = self.registry[request.method] else {
            let result = Result<[UInt8], RPCError>.failure(.methodNotFound(request.method))
            self.metrics?.record(nil, started: started, result: result)
            return .answered(id: request.id, result)
        }
        let result: Result<[UInt8], RPCError>
        do {
            if case .inline(let body) = entry.execution {
                result = .success(try body(request.params, InlineContext(peer: connection.peer, isAdmin: connection.isAdmin)))
            } else if let immediate = entry.immediate, let reads = self.immediateReads,
                let caller = self.immediateCaller(entry.access, on: connection)
            {
                let key = ImmediateReads.Key(
                    method: request.method,
                    params: request.params ?? [],
                    userID: caller.principalID,
                    isAdmin: caller.isAdmin
                )
                guard let answer = try reads.answer(key, { try immediate(request.params, caller, $0) }) else { return .needsTask }
                result = .success(answer)
            } else {
                return .needsTask
            }
        } catch {
            result = .failure(self.wireError(error, method: request.method))
        }
        self.metrics?.record(entry.instruments, started: started, result: result)
        return .answered(id: request.id, result)
    }

    /// The caller of an immediate read on `connection`, when it may run at once: nothing else in flight on the
    /// connection (a call sent earlier, such as a login, finishes first), a session that needs no new check,
    /// and access granted. Nil: the call runs as a task, which checks and answers everything else.
    private func immediateCaller(_ access: AccessRequirement, on connection: ConnectionState) -> Caller? {
        guard connection.inFlight == 0 else { return nil }
        var caller = Caller(peer: connection.peer, isAdmin: connection.isAdmin)
        caller.installationID = connection.installationID
        if let bound = connection.session {
            guard self.users.isCurrent(bound.session, checkedAt: bound.generation) else { return nil }
            caller.bind(bound.session)
        }
        switch access {
        case .anyone: return caller
        case .session: return caller.session != nil || caller.isAdmin ? caller : nil
        case .principal: return caller.principalID != nil || caller.isAdmin ? caller : nil
        case .admin: return caller.isAdmin ? caller : nil
        }
    }

    /// Runs one request to completion; `afterReply` collects work for after the reply is written.
    func execute(
        _ request: RPCRequest,
        on connection: ConnectionState,
        session: SessionAtArrival,
        afterReply: AfterReply
    ) async -> [UInt8]? {
        let started = self.metrics == nil ? 0 : RequestMetrics.now()
        guard let entry = self.registry[request.method] else {
            let result = Result<[UInt8], RPCError>.failure(.methodNotFound(request.method))
            self.metrics?.record(nil, started: started, result: result)
            return Self.reply(request.id, result)
        }
        let result: Result<[UInt8], RPCError>
        do {
            switch entry.execution {
            case .inline(let body):
                result = .success(try body(request.params, InlineContext(peer: connection.peer, isAdmin: connection.isAdmin)))
            case .async(let body):
                let context = try await self.context(for: request, access: entry.access, on: connection, session: session, afterReply: afterReply)
                if entry.isExpensive {
                    let permit = try self.admission.admit(connection: connection.id, principal: context.caller.principal)
                    defer { self.admission.release(permit) }
                    result = .success(try await body(request.params, context))
                } else {
                    result = .success(try await body(request.params, context))
                }
            }
        } catch {
            result = .failure(self.wireError(error, method: request.method))
        }
        self.metrics?.record(entry.instruments, started: started, result: result)
        return Self.reply(request.id, result)
    }

    /// Whether work changes the connection's session: nil when not; for a batch, true (run it in order).
    func changesSession(_ work: ConnectionState.Work) -> Bool? {
        switch work {
        case .single(let request):
            return self.registry[request.method]?.changesSession == true ? false : nil
        case .batch(let entries):
            let barrier = entries.contains { entry in
                if case .request(let request) = entry { return self.registry[request.method]?.changesSession == true }
                return false
            }
            return barrier ? true : nil
        }
    }

    /// A connection closed: its subscriptions end.
    func connectionClosed(_ connection: ConnectionState) {
        self.hub?.connectionClosed(connection)
    }

    /// Runs a batch, its entries concurrently, and returns one array reply (nil when every entry was a
    /// notification).
    func executeBatch(
        _ entries: [RPCFrame.Entry],
        on connection: ConnectionState,
        session: SessionAtArrival,
        afterReply: AfterReply,
        sequential: Bool
    ) async -> [UInt8]? {
        // In order, each entry sees the session the entries before it left; concurrently, all act as the batch's.
        let entrySession: SessionAtArrival = sequential ? .live : session
        func run(_ entry: RPCFrame.Entry) async -> [UInt8]? {
            switch entry {
            case .invalid(let id, let error): Self.reply(id, .failure(error))
            case .request(let request): await self.execute(request, on: connection, session: entrySession, afterReply: afterReply)
            }
        }
        var budget = BatchReplyBudget(limit: self.maximumBatchReplyBytes)
        if sequential {
            var replies: [[UInt8]?] = []
            for entry in entries { replies.append(budget.admit(await run(entry), id: entry.id)) }
            return Self.batchReply(replies)
        }
        let replies = await withTaskGroup(of: (Int, [UInt8]?).self) { group in
            var replies = [[UInt8]?](repeating: nil, count: entries.count)
            var next = 0
            func start(_ index: Int) {
                let entry = entries[index]
                group.addTask { (index, await run(entry)) }
            }
            while next < min(entries.count, self.batchConcurrency) {
                start(next)
                next += 1
            }
            for await (index, reply) in group {
                replies[index] = budget.admit(reply, id: entries[index].id)
                if next < entries.count {
                    start(next)
                    next += 1
                }
            }
            return replies
        }
        return Self.batchReply(replies)
    }

    /// Assembles a batch reply from its entries' replies; nil when there are none.
    static func batchReply(_ replies: [[UInt8]?]) -> [UInt8]? {
        var bytes: [UInt8] = [UInt8(ascii: "[")]
        var any = false
        for reply in replies {
            guard let reply else { continue }
            if any { bytes.append(UInt8(ascii: ",")) }
            bytes.append(contentsOf: reply)
            any = true
        }
        guard any else { return nil }
        bytes.append(UInt8(ascii: "]"))
        return bytes
    }

    /// A reply for `id` (nil for notifications).
    static func reply(_ id: RequestID?, _ result: Result<[UInt8], RPCError>) -> [UInt8]? {
        guard let id else { return nil }
        var bytes: [UInt8] = []
        switch result {
        case .success(let json): RPCMessageWriter.appendResult(id: id, result: json, to: &bytes)
        case .failure(let error): RPCMessageWriter.appendError(id: id, error: error, to: &bytes)
        }
        return bytes
    }

    // MARK: - Access

    private func context(
        for request: RPCRequest,
        access: AccessRequirement,
        on connection: ConnectionState,
        session: SessionAtArrival,
        afterReply: AfterReply
    ) async throws -> RequestContext {
        var caller = Caller(peer: connection.peer, isAdmin: connection.isAdmin)
        caller.installationID = connection.installationID
        // Why the bound session no longer holds (its token revoked or expired, or its thing disabled): the
        // connection is unbound, and a call that needs a session says why.
        var revoked: GuildError?
        let binding: ConnectionState.Binding? =
            switch session {
            case .captured(let binding): binding
            case .live: connection.session
            }
        if let bound = binding {
            do {
                let (live, generation) = try await self.users.revalidate(bound.session, checkedAt: bound.generation)
                caller.bind(live)
                if generation != bound.generation { connection.replaceSession(bound, with: (live, generation)) }
            } catch let error as GuildError where error.code == .invalidToken || error.code == .thingDisabled {
                connection.unbind(bound, observer: self.bindingObserver)
                revoked =
                    error.code == .thingDisabled
                    ? GuildError(.thingDisabled, error.message + "; the connection is unbound")
                    : GuildError(.invalidToken, "the session's access token was revoked or has expired; the connection is unbound")
            }
        }
        switch access {
        case .anyone:
            break
        case .session:
            if let revoked { throw revoked }
            if caller.thingID != nil && !caller.isAdmin {
                throw GuildError(.permissionDenied, "\(request.method) is for users; the connection is bound to a thing")
            }
            guard caller.session != nil || caller.isAdmin else {
                throw GuildError(.unauthorized, "\(request.method) needs a session: call session.authenticate first")
            }
        case .principal:
            if let revoked { throw revoked }
            guard caller.principalID != nil || caller.isAdmin else {
                throw GuildError(.unauthorized, "\(request.method) needs a session: call session.authenticate first")
            }
        case .admin:
            guard caller.isAdmin else {
                throw GuildError(.permissionDenied, "\(request.method) is for admins (peer uid root or --admin-uid)")
            }
        }
        return RequestContext(
            caller: caller,
            connection: connection,
            logger: self.logger,
            afterReply: afterReply,
            generations: self.users.generations,
            bindingObserver: self.bindingObserver
        )
    }

    private func wireError(_ error: any Error, method: String) -> RPCError {
        switch error {
        case let error as RPCError: return error
        case let error as GuildError: return error.rpcError
        default:
            self.logger.error("internal error", metadata: ["rpc.method": "\(method)", "error": "\(error)"])
            return .internalError
        }
    }
}
