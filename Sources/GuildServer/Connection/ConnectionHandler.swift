import GuildJSON
import GuildProtocol
import NIOCore

/// The per-connection channel handler: reads frames, answers cheap calls at once on the event loop, hands
/// the rest to the connection's task, and protects the daemon from the connection.
///
/// - Replies written on the event loop are gathered and flushed once per read burst.
/// - A peer that stops reading its replies stops being read from (the socket is not writable), and after
///   `writeStallTimeout` it is closed; nothing else waits for it.
/// - A frame over the limit gets one -32600 FRAME_TOO_LARGE error, then the connection is closed.
/// - While the connection's replies wait to be written (the channel is not writable), frames already read
///   are held back, unanswered, in arrival order: a peer that pipelines calls with large replies and does not
///   read them makes the daemon hold at most about one high-water mark of replies for it.
/// - A connection from a non-admin peer with no session, no subscription and nothing in flight is closed
///   with -32006 IDLE_TIMEOUT after `idleTimeoutSeconds` without a request.
final class ConnectionHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let state: ConnectionState
    private let dispatcher: Dispatcher
    private let parser: RequestParser
    private let maximumInFlight: Int
    private let writeStallTimeout: TimeAmount
    private let idleTimeout: TimeAmount?
    private let maximumBatchReplyBytes: Int
    private let maximumFrameBytes: Int
    private var output: ByteBuffer?
    /// Where a reply answered on the event loop is assembled before it joins `output`.
    private var scratch: [UInt8] = []
    private var readHeld = false
    private var stallTimer: Scheduled<Void>?
    private var idleTimer: Scheduled<Void>?
    private var lastActivity = NIODeadline.now()
    /// Cuts reads into lines; keeps the lines read while the channel was not writable, answered once it is
    /// again.
    private var framer: LineFramer
    /// A line is being answered from inside the framer: a flush that makes the channel writable again must not
    /// re-enter it (the outer loop goes on by itself).
    private var inFramer = false
    /// The peer closed its side while lines were held back: drain once they are answered.
    private var inputClosed = false
    private var closing = false

    /// Unflushed replies past this many bytes are flushed at once, so writability reflects them.
    private static let flushThreshold = 64 * 1024

    init(state: ConnectionState, dispatcher: Dispatcher, configuration: ServerConfiguration) {
        self.state = state
        self.dispatcher = dispatcher
        self.parser = RequestParser(
            maximumDepth: configuration.maximumNestingDepth,
            maximumBatchSize: configuration.maximumBatchSize
        )
        self.maximumInFlight = configuration.maximumInFlightPerConnection
        self.writeStallTimeout = .nanoseconds(Int64(configuration.writeStallTimeoutSeconds * 1_000_000_000))
        self.idleTimeout =
            configuration.idleTimeoutSeconds > 0 && !state.isAdmin
            ? .nanoseconds(Int64(configuration.idleTimeoutSeconds * 1_000_000_000)) : nil
        self.maximumBatchReplyBytes = configuration.maximumBatchReplyBytes
        self.maximumFrameBytes = configuration.maximumFrameBytes
        self.framer = LineFramer(maximumLineBytes: configuration.maximumFrameBytes)
    }

    // MARK: - Inbound

    func handlerAdded(context: ChannelHandlerContext) {
        if let idleTimeout = self.idleTimeout { self.scheduleIdleCheck(in: idleTimeout, context: context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.idleTimer?.cancel()
        self.stallTimer?.cancel()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !self.closing else { return }
        if self.idleTimeout != nil { self.lastActivity = .now() }
        let bytes = self.unwrapInboundIn(data)
        self.inFramer = true
        let outcome = bytes.withUnsafeReadableBytes { read in
            self.framer.feed(read) { line in self.answer(line, context: context) }
        }
        self.inFramer = false
        self.settle(outcome, context: context)
    }

    /// Answers one line, unless the channel is not writable (its replies wait to be written) or closing: then
    /// the line and every one after it are held back, unanswered, in arrival order.
    private func answer(_ line: UnsafeRawBufferPointer, context: ChannelHandlerContext) -> LineFramer.Next {
        guard !self.closing, context.channel.isWritable else { return .hold }
        self.process(line, context: context)
        return .proceed
    }

    /// A line over the limit ends the connection; held lines wait for `processDeferred`.
    private func settle(_ outcome: LineFramer.Outcome, context: ChannelHandlerContext) {
        if outcome == .tooLarge, !self.closing { self.refuseOversizedFrame(context: context) }
    }

    private func process(_ line: UnsafeRawBufferPointer, context: ChannelHandlerContext) {
        switch self.parser.parse(line) {
        case .failure(let error):
            self.queue(Dispatcher.reply(.null, .failure(error)), context: context)
        case .single(let entry):
            self.handle(entry, context: context)
        case .batch(let entries):
            self.handle(batch: entries, context: context)
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        self.flushOutput(context: context)
        context.fireChannelReadComplete()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed {
            // The peer finished sending (e.g. `nc -N`): answer what is in flight, then close.
            if self.framer.isHolding {
                self.inputClosed = true
            } else {
                self.finishInput(context: context)
            }
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.stallTimer?.cancel()
        self.idleTimer?.cancel()
        self.state.finishWork()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        self.closeAfterFlushing(context: context)
    }

    /// The peer finished sending: answers a last line that had no `\n` as a line, then answers what is in
    /// flight and closes.
    private func finishInput(context: ChannelHandlerContext) {
        if !self.closing, !self.inFramer {
            self.inFramer = true
            _ = self.framer.finish { line in self.process(line, context: context) }
            self.inFramer = false
        }
        self.flushOutput(context: context)
        self.state.drain()
    }

    /// Answers a line over `--max-frame-bytes` with FRAME_TOO_LARGE and closes the connection.
    private func refuseOversizedFrame(context: ChannelHandlerContext) {
        let tooLarge = RPCError.invalidRequest(
            "frame exceeds the limit of \(self.maximumFrameBytes) bytes; the connection is closed",
            reason: ErrorReason.frameTooLarge
        )
        self.queue(Dispatcher.reply(.null, .failure(tooLarge)), context: context)
        self.closeAfterFlushing(context: context)
    }

    /// Writes what is queued, then closes once it is written (or after the close grace); nothing more is read.
    private func closeAfterFlushing(context: ChannelHandlerContext) {
        self.flushOutput(context: context)
        guard !self.closing else { return }
        self.closing = true
        self.state.closeWhenWritten()
    }

    // MARK: - Backpressure

    func read(context: ChannelHandlerContext) {
        if self.closing { return }  // what a closing connection sends is never answered
        if context.channel.isWritable {
            context.read()
        } else {
            self.readHeld = true
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            self.stallTimer?.cancel()
            self.stallTimer = nil
            self.processDeferred(context: context)
            if self.readHeld, !self.framer.isHolding, context.channel.isWritable {
                self.readHeld = false
                context.read()
            }
        } else if self.stallTimer == nil {
            let channel = context.channel
            self.stallTimer = context.eventLoop.scheduleTask(in: self.writeStallTimeout) {
                channel.close(promise: nil)
            }
        }
        context.fireChannelWritabilityChanged()
    }

    /// Answers lines held back while the channel was not writable, until it is not writable again.
    private func processDeferred(context: ChannelHandlerContext) {
        guard self.framer.isHolding, !self.closing, !self.inFramer else { return }
        self.inFramer = true
        let outcome = self.framer.resume { line in self.answer(line, context: context) }
        self.inFramer = false
        self.settle(outcome, context: context)
        self.flushOutput(context: context)
        if !self.framer.isHolding, self.inputClosed {
            self.inputClosed = false
            self.finishInput(context: context)
        }
    }

    // MARK: - Idle connections

    private func scheduleIdleCheck(in delay: TimeAmount, context: ChannelHandlerContext) {
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        self.idleTimer = context.eventLoop.scheduleTask(in: delay) {
            let (handler, context) = loopBound.value
            handler.checkIdle(context: context)
        }
    }

    private func checkIdle(context: ChannelHandlerContext) {
        guard let idleTimeout = self.idleTimeout, !self.closing else { return }
        let busy = self.state.session != nil || self.state.subscriptionCount > 0 || self.state.inFlight > 0
        let idleUntil = self.lastActivity + idleTimeout
        if busy || idleUntil > .now() {
            self.scheduleIdleCheck(in: busy ? idleTimeout : idleUntil - .now(), context: context)
            return
        }
        let error = RPCError(
            code: .idleTimeout,
            message: "no request, session or subscription for \(idleTimeout.nanoseconds / 1_000_000_000) s; the connection is closed",
            reason: ErrorReason.idleTimeout
        )
        self.queue(Dispatcher.reply(.null, .failure(error)), context: context)
        self.closeAfterFlushing(context: context)
    }

    // MARK: - Requests

    private func handle(_ entry: RPCFrame.Entry, context: ChannelHandlerContext) {
        switch entry {
        case .invalid(let id, let error):
            self.queue(Dispatcher.reply(id, .failure(error)), context: context)
        case .request(let request):
            switch self.dispatcher.runInline(request, on: self.state) {
            case .answered(let id, let result):
                self.queue(id: id, result, context: context)
            case .needsTask:
                if !self.state.draining, self.state.inFlight < self.maximumInFlight {
                    self.state.submit(.single(request))
                } else {
                    // A notification that cannot start is dropped: it is never answered, not even with an error.
                    self.queue(self.refusal(for: request.id), context: context)
                }
            }
        }
    }

    private func handle(batch entries: [RPCFrame.Entry], context: ChannelHandlerContext) {
        var replies: [[UInt8]?] = []
        replies.reserveCapacity(entries.count)
        var budget = BatchReplyBudget(limit: self.maximumBatchReplyBytes)
        for entry in entries {
            switch entry {
            case .invalid(let id, let error):
                replies.append(budget.admit(Dispatcher.reply(id, .failure(error)), id: id))
            case .request(let request):
                guard
                    case .answered(let id, let result) = self.dispatcher.runInline(request, on: self.state)
                else {
                    // At least one entry needs a task: the whole batch runs there, to reply with one array.
                    if self.state.inFlight >= self.maximumInFlight || self.state.draining {
                        let refusals = entries.map { entry -> [UInt8]? in
                            switch entry {
                            case .invalid(let id, let error): Dispatcher.reply(id, .failure(error))
                            case .request(let request): self.refusal(for: request.id)
                            }
                        }
                        self.queue(Dispatcher.batchReply(refusals), context: context)
                    } else {
                        self.state.submit(.batch(entries))
                    }
                    return
                }
                replies.append(budget.admit(Dispatcher.reply(id, result), id: request.id))
            }
        }
        self.queue(Dispatcher.batchReply(replies), context: context)
    }

    /// The error reply for a request that cannot start now (shutting down, or too many in flight).
    private func refusal(for id: RequestID?) -> [UInt8]? {
        if self.state.draining {
            let error = RPCError(
                code: .shuttingDown,
                message: "the daemon is shutting down; the request was not started",
                reason: ErrorReason.shuttingDown
            )
            return Dispatcher.reply(id, .failure(error))
        }
        let error = RPCError(
            code: .tooManyRequests,
            message: "this connection already has \(self.maximumInFlight) requests in flight; retry when they finish",
            reason: ErrorReason.tooManyRequests,
            extra: ["limit": .int(Int64(self.maximumInFlight))]
        )
        return Dispatcher.reply(id, .failure(error))
    }

    // MARK: - Output

    /// Writes the reply to `id` (none for a notification), assembled in a scratch array the handler keeps, so
    /// that a reply answered on the event loop costs no allocation of its own.
    private func queue(id: RequestID?, _ result: Result<[UInt8], RPCError>, context: ChannelHandlerContext) {
        guard let id else { return }
        self.scratch.removeAll(keepingCapacity: true)
        switch result {
        case .success(let json): RPCMessageWriter.appendResult(id: id, result: json, to: &self.scratch)
        case .failure(let error): RPCMessageWriter.appendError(id: id, error: error, to: &self.scratch)
        }
        // The newline goes into the scratch array: one `ByteBuffer` write per reply (sharing `queue(_:context:)`
        // and its second write measured ~270 more instructions per pipelined ping).
        self.scratch.append(UInt8(ascii: "\n"))
        var output = self.output.take() ?? context.channel.allocator.buffer(capacity: max(self.scratch.count, 256))
        output.writeBytes(self.scratch)
        self.output = output
        if self.scratch.capacity > Self.flushThreshold { self.scratch = [] }
        if output.readableBytes >= Self.flushThreshold { self.flushOutput(context: context) }
    }

    private func queue(_ reply: [UInt8]?, context: ChannelHandlerContext) {
        guard let reply else { return }
        // Moved out and back, so the buffer stays uniquely referenced and is written in place.
        var output = self.output.take() ?? context.channel.allocator.buffer(capacity: max(reply.count + 1, 256))
        output.writeBytes(reply)
        output.writeStaticString("\n")
        self.output = output
        if output.readableBytes >= Self.flushThreshold { self.flushOutput(context: context) }
    }

    /// Writes the replies answered on the event loop. They are not counted in the connection's queued bytes
    /// (that costs a promise per write): the channel's writability bounds them, since frames wait while it is
    /// not writable.
    private func flushOutput(context: ChannelHandlerContext) {
        guard let output = self.output else { return }
        self.output = nil
        context.writeAndFlush(self.wrapOutboundOut(output), promise: nil)
    }
}
