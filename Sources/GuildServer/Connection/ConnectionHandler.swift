import GuildProtocol
import NIOCore
import NIOExtras

/// The per-connection channel handler: reads frames, answers cheap calls at once on the event loop, hands
/// the rest to the connection's task, and protects the daemon from the connection.
///
/// - Replies written on the event loop are gathered and flushed once per read burst.
/// - A peer that stops reading its replies stops being read from (the socket is not writable), and after
///   `writeStallTimeout` it is closed; nothing else waits for it.
/// - A frame over the limit gets one -32600 FRAME_TOO_LARGE error, then the connection is closed.
final class ConnectionHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let state: ConnectionState
    private let dispatcher: Dispatcher
    private let parser: RequestParser
    private let maximumInFlight: Int
    private let writeStallTimeout: TimeAmount
    private var output: ByteBuffer?
    private var readHeld = false
    private var stallTimer: Scheduled<Void>?
    private var closing = false

    init(state: ConnectionState, dispatcher: Dispatcher, configuration: ServerConfiguration) {
        self.state = state
        self.dispatcher = dispatcher
        self.parser = RequestParser(
            maximumDepth: configuration.maximumNestingDepth,
            maximumBatchSize: configuration.maximumBatchSize
        )
        self.maximumInFlight = configuration.maximumInFlightPerConnection
        self.writeStallTimeout = .nanoseconds(Int64(configuration.writeStallTimeoutSeconds * 1_000_000_000))
    }

    // MARK: - Inbound

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !self.closing else { return }
        let frame = self.unwrapInboundIn(data)
        let parsed = frame.withUnsafeReadableBytes { self.parser.parse($0) }
        switch parsed {
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
            self.flushOutput(context: context)
            self.state.drain()
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.stallTimer?.cancel()
        self.state.finishWork()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if error is ByteToMessageDecoderError.PayloadTooLargeError {
            let tooLarge = RPCError.invalidRequest(
                "frame exceeds the limit; the connection is closed",
                reason: ErrorReason.frameTooLarge
            )
            self.queue(Dispatcher.reply(.null, .failure(tooLarge)), context: context)
        }
        self.flushOutput(context: context)
        self.closing = true
        context.close(promise: nil)
    }

    // MARK: - Backpressure

    func read(context: ChannelHandlerContext) {
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
            if self.readHeld {
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

    // MARK: - Requests

    private func handle(_ entry: RPCFrame.Entry, context: ChannelHandlerContext) {
        switch entry {
        case .invalid(let id, let error):
            self.queue(Dispatcher.reply(id, .failure(error)), context: context)
        case .request(let request):
            switch self.dispatcher.runInline(request, peer: self.state.peer, isAdmin: self.state.isAdmin) {
            case .reply(let reply):
                self.queue(reply, context: context)
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
        for entry in entries {
            switch entry {
            case .invalid(let id, let error):
                replies.append(Dispatcher.reply(id, .failure(error)))
            case .request(let request):
                guard
                    case .reply(let reply) = self.dispatcher.runInline(
                        request,
                        peer: self.state.peer,
                        isAdmin: self.state.isAdmin
                    )
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
                replies.append(reply)
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

    private func queue(_ reply: [UInt8]?, context: ChannelHandlerContext) {
        guard let reply else { return }
        if self.output == nil {
            self.output = context.channel.allocator.buffer(capacity: max(reply.count + 1, 256))
        }
        self.output!.writeBytes(reply)
        self.output!.writeInteger(UInt8(ascii: "\n"))
    }

    private func flushOutput(context: ChannelHandlerContext) {
        guard let output = self.output else { return }
        self.output = nil
        context.writeAndFlush(self.wrapOutboundOut(output), promise: nil)
    }
}
