import Foundation
import GuildJSON
import GuildProtocol
import NIOCore
import NIOPosix
import Synchronization

/// A connection to `guildd`: typed and raw JSON-RPC calls, batches, and the daemon's notifications.
///
/// One client carries any number of concurrent calls; replies are matched by id. Errors the daemon answers
/// with are thrown as `RPCError` (with `code`, `message`, `reason` and `field`); transport failures as
/// ``GuildClientError``.
///
/// ```swift
/// let client = try await GuildClient.connect(path: "/run/guild/guild.sock")
/// let pong = try await client.call(SystemMethods.Ping.self)
/// let me = try await client.call(UserMethods.RegisterPseudo.self, .init(displayName: "Ada"))
/// ```
public final class GuildClient: Sendable {
    private let channel: any Channel
    let connection: ClientConnection
    private let nextID = Atomic<Int>(1)
    /// Where a call waiting for its reply resumes: the event loop that reads the reply.
    private let loopTaskExecutor: EventLoopTaskExecutor
    /// Every request and notification goes through it, in the order they were made.
    private let outbox: RequestOutbox

    private init(channel: any Channel, connection: ClientConnection) {
        self.channel = channel
        self.connection = connection
        self.loopTaskExecutor = EventLoopTaskExecutor(channel.eventLoop)
        self.outbox = RequestOutbox(channel: channel)
    }

    /// Connects to the daemon's socket.
    /// - Parameters:
    ///   - path: the socket path; see ``defaultSocketPath()``.
    ///   - maximumFrameBytes: the largest reply line accepted.
    public static func connect(
        path: String = GuildClient.defaultSocketPath(),
        maximumFrameBytes: Int = 64 * 1024 * 1024,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) async throws -> GuildClient {
        let connection = ClientConnection()
        do {
            let channel = try await ClientBootstrap(group: group)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(
                            ClientHandler(connection: connection, maximumFrameBytes: maximumFrameBytes)
                        )
                    }
                }
                .connect(unixDomainSocketPath: path)
                .get()
            return GuildClient(channel: channel, connection: connection)
        } catch {
            throw GuildClientError.connectFailed(path: path, reason: "\(error)")
        }
    }

    /// The socket path used when none is given: `GUILD_SOCKET`, else `$XDG_RUNTIME_DIR/guild/guild.sock`,
    /// else `/run/guild/guild.sock` for root, else `/run/user/UID/guild/guild.sock`.
    public static func defaultSocketPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let path = environment["GUILD_SOCKET"], !path.isEmpty { return path }
        if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty { return runtime + "/guild/guild.sock" }
        let uid = getuid()
        return uid == 0 ? "/run/guild/guild.sock" : "/run/user/\(uid)/guild/guild.sock"
    }

    /// Server notifications (such as `events.event`), in arrival order. Ends when the connection closes.
    /// Iterate it from one task only.
    public var notifications: AsyncStream<ServerNotification> { self.connection.notifications }

    // MARK: - Calls

    /// Calls a method with typed params and result.
    public func call<M: RPCMethod>(_ method: M.Type, _ params: M.Params) async throws -> M.Result {
        let bytes = try await self.callRaw(M.name, params: try RPCCoding.encode(params))
        return try Self.decode(M.Result.self, bytes, method: M.name)
    }

    /// Calls a method that takes no params.
    public func call<M: RPCMethod>(_ method: M.Type) async throws -> M.Result where M.Params == NoParams {
        let bytes = try await self.callRaw(M.name, params: nil)
        return try Self.decode(M.Result.self, bytes, method: M.name)
    }

    /// Calls any method with untyped params; returns the untyped result.
    public func call(_ method: String, params: JSONValue? = nil) async throws -> JSONValue {
        let bytes = try await self.callRaw(method, params: try params.map { try RPCCoding.encode($0) })
        return try Self.decode(JSONValue.self, bytes, method: method)
    }

    /// Calls any method with params given as JSON text; returns the result's exact JSON text.
    public func callRaw(_ method: String, params: [UInt8]?) async throws -> [UInt8] {
        try await self.callRaw(method, params: params, routing: nil)
    }

    /// Calls a method; for `events.subscribe`, `routing` receives the subscription's events.
    func callRaw(_ method: String, params: [UInt8]?, routing: ClientConnection.EventContinuation?) async throws -> [UInt8] {
        let id = RequestID(self.nextID.add(1, ordering: .relaxed).oldValue)
        let reply: ClientConnection.Reply
        if self.channel.eventLoop.inEventLoop {
            // The caller runs on this connection's event loop (an actor that uses `executor`): with the event
            // loop as the preferred task executor, the reply resumes the call right where it is read, with no
            // thread hop. Other callers resume on the cooperative pool as usual, never on the event loop.
            reply = try await withTaskExecutorPreference(self.loopTaskExecutor) {
                try await self.exchange(id, method: method, params: params, routing: routing)
            }
        } else {
            reply = try await self.exchange(id, method: method, params: params, routing: routing)
        }
        return try reply.get()
    }

    /// Sends a notification (no reply comes, not even an error).
    public func notify(_ method: String, params: JSONValue? = nil) async throws {
        var bytes: [UInt8] = []
        RPCMessageWriter.appendRequest(id: nil, method: method, params: try params.map { try RPCCoding.encode($0) }, to: &bytes)
        bytes.append(UInt8(ascii: "\n"))
        try await self.write(bytes)
    }

    /// Sends a batch; returns one entry per input entry, in order: the result's JSON text or the error
    /// (nil for notifications). Throws when the daemon refuses the whole batch.
    public func batch(_ entries: [BatchEntry]) async throws -> [Result<[UInt8], RPCError>?] {
        precondition(!entries.isEmpty, "a batch needs at least one entry")
        var bytes: [UInt8] = [UInt8(ascii: "[")]
        var ids: [(RequestID, Int)] = []
        for (index, entry) in entries.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            var id: RequestID?
            if !entry.isNotification {
                id = RequestID(self.nextID.add(1, ordering: .relaxed).oldValue)
                ids.append((id!, index))
            }
            RPCMessageWriter.appendRequest(id: id, method: entry.method, params: entry.params, to: &bytes)
        }
        bytes.append(contentsOf: [UInt8(ascii: "]"), UInt8(ascii: "\n")])
        if ids.isEmpty {
            try await self.write(bytes)
            return Array(repeating: nil, count: entries.count)
        }
        return try await self.collect(count: entries.count, expected: ids.count, isBatch: true) {
            self.connection.await(batch: $0, ids: ids)
        } write: {
            $0.append(contentsOf: bytes)
        }
    }

    /// Calls `method` once for each element of `params`, all in flight at once, and returns their outcomes in
    /// the order of `params`: a result, or the `RPCError` the daemon answered that call with.
    ///
    /// The requests go out together, one line each (not a JSON-RPC batch: the daemon runs and answers them as
    /// independent calls, each as soon as it is done), and the caller is resumed once, when the last reply is
    /// in. Many calls cost one wake-up of the caller instead of one each, which is what bulk work wants:
    ///
    /// ```swift
    /// let profiles = try await client.calls(UserMethods.Get.self, ids.map { .init(userID: $0) })
    /// ```
    ///
    /// Throws ``GuildClientError/disconnected`` when the connection closes before every reply is in, and
    /// ``GuildClientError/invalidResponse(_:)`` when a result is not the method's result type. Subscribe with
    /// ``subscribe(groupIDs:buckets:thingIDs:kinds:since:all:bufferLimit:)``: an `events.subscribe` made here gets
    /// its reply but no event stream.
    @inlinable  // specialised for the method's result type: its results are read without dynamic casts
    public func calls<M: RPCMethod>(_ method: M.Type, _ params: [M.Params]) async throws -> [Result<M.Result, RPCError>] {
        let encoded = try params.map { try RPCCoding.encode($0) }
        return try Self.decode(M.Result.self, try await self.pipelined(M.name, params: encoded), method: M.name)
    }

    /// Calls a method that takes no params `count` times, all in flight at once (see ``calls(_:_:)``).
    @inlinable
    public func calls<M: RPCMethod>(_ method: M.Type, count: Int) async throws -> [Result<M.Result, RPCError>]
    where M.Params == NoParams {
        precondition(count >= 0, "a negative number of calls")
        return try Self.decode(M.Result.self, try await self.pipelined(M.name, params: Array(repeating: nil, count: count)), method: M.name)
    }

    /// Sends one request line per element of `params` in one write and waits for all their replies.
    @usableFromInline
    func pipelined(_ method: String, params: [[UInt8]?]) async throws -> [Result<[UInt8], RPCError>] {
        guard !params.isEmpty else { return [] }
        let first = self.nextID.add(params.count, ordering: .relaxed).oldValue
        let replies = try await self.collect(count: params.count, expected: params.count, isBatch: false) {
            self.connection.await(pipeline: $0, first: first, count: params.count)
        } write: { bytes in
            RPCMessageWriter.appendRequestLines(firstID: first, method: method, params: params, to: &bytes)
        }
        // Every entry was expected, so the collector finished only once each had its reply.
        return replies.map { $0! }
    }

    /// Makes one collector for `count` entries, of which `expected` get replies, registers it with `register`
    /// (false: the connection is closed), sends what `write` appends, and waits until every expected entry has
    /// its reply; fails with ``GuildClientError/disconnected`` when the connection is or gets closed first.
    private func collect(
        count: Int,
        expected: Int,
        isBatch: Bool,
        register: (BatchCollector) -> Bool,
        write: (inout [UInt8]) -> Void
    ) async throws -> [Result<[UInt8], RPCError>?] {
        try await withCheckedThrowingContinuation { continuation in
            let collector = BatchCollector(count: count, expected: expected, isBatch: isBatch, continuation: continuation)
            guard register(collector) else {
                collector.fail(GuildClientError.disconnected)
                return
            }
            self.outbox.send(write)
        }
    }

    /// Writes raw bytes to the socket, exactly as given (for tests and tools).
    public func sendRaw(_ bytes: [UInt8]) async throws {
        try await self.write(bytes)
    }

    /// Closes the connection; calls still waiting fail with ``GuildClientError/disconnected``.
    public func close() async {
        try? await self.channel.close()
    }

    /// Whether the connection is still open.
    public var isConnected: Bool { self.channel.isActive }

    /// The executor of the event loop this connection lives on. An actor that uses it as its executor
    /// calls the client without any thread hop (the client's calls run on their caller's executor), which
    /// gives the lowest latency for sequential calls:
    ///
    /// ```swift
    /// actor Pinned {
    ///     let client: GuildClient
    ///     nonisolated var unownedExecutor: UnownedSerialExecutor { client.executor.asUnownedSerialExecutor() }
    ///     func ping() async throws -> String { try await client.call(SystemMethods.Ping.self) }
    /// }
    /// ```
    public var executor: any SerialExecutor { self.channel.eventLoop.executor }

    /// A task executor on the event loop this connection lives on. Tasks that prefer it make their calls,
    /// and are resumed by their replies, on the thread that reads those replies: no thread hop per call,
    /// and many calls in flight share one thread. For work that makes many calls:
    ///
    /// ```swift
    /// await withTaskGroup(of: Void.self) { group in
    ///     for _ in 0..<64 {
    ///         group.addTask(executorPreference: client.taskExecutor) { _ = try? await client.call(SystemMethods.Ping.self) }
    ///     }
    /// }
    /// ```
    ///
    /// Keep blocking work off it: the event loop also reads and writes this connection.
    public var taskExecutor: any TaskExecutor { self.loopTaskExecutor }

    // MARK: - Helpers

    /// Registers a waiter for `id`, sends the request and waits for the reply.
    private func exchange(
        _ id: RequestID,
        method: String,
        params: [UInt8]?,
        routing: ClientConnection.EventContinuation?
    ) async throws -> ClientConnection.Reply {
        // Every waiter is resumed exactly once: by its reply, or when the connection closes (which a failed
        // write causes; each takes it out of the connection's table first), so an unchecked continuation is safe.
        try await withUnsafeThrowingContinuation { continuation in
            let registered =
                if let routing {
                    self.connection.await(subscribe: id, continuation, events: routing)
                } else {
                    self.connection.await(id, continuation)
                }
            guard registered else {
                continuation.resume(throwing: GuildClientError.disconnected)
                return
            }
            self.outbox.send { bytes in
                RPCMessageWriter.appendRequest(id: id, method: method, params: params, to: &bytes)
                bytes.append(UInt8(ascii: "\n"))
            }
        }
    }

    /// Writes bytes after the requests already sent, and waits until they are written.
    private func write(_ bytes: [UInt8]) async throws {
        let promise = self.channel.eventLoop.makePromise(of: Void.self)
        self.outbox.send(promise: promise) { $0.append(contentsOf: bytes) }
        try await promise.futureResult.get()
    }

    /// The results of pipelined calls as `T`. Inlined into the caller, which knows `T`: when it has a fast path,
    /// the loop is specialised for it (decoding was a fifth of a pipelined call's CPU while it was generic).
    @inlinable
    static func decode<T: Decodable>(
        _ type: T.Type,
        _ replies: [Result<[UInt8], RPCError>],
        method: String
    ) throws -> [Result<T, RPCError>] {
        if let readable = type as? any JSONReadable.Type, let decoded = Self.read(readable, replies) as? [Result<T, RPCError>] {
            return decoded
        }
        return try replies.map { reply in
            switch reply {
            case .success(let bytes): .success(try Self.decode(type, bytes, method: method))
            case .failure(let error): .failure(error)
            }
        }
    }

    /// The results read with `R`'s fast path, as `[Result<R, RPCError>]`; nil when the fast path does not
    /// handle one of them.
    @inlinable
    static func read<R: JSONReadable>(_ type: R.Type, _ replies: [Result<[UInt8], RPCError>]) -> Any? {
        var decoded: [Result<R, RPCError>] = []
        decoded.reserveCapacity(replies.count)
        for reply in replies {
            switch reply {
            case .success(let bytes):
                guard let value = bytes.withUnsafeBytes({ R.read(in: $0) }) else { return nil }
                decoded.append(.success(value))
            case .failure(let error):
                decoded.append(.failure(error))
            }
        }
        return decoded
    }

    @usableFromInline
    static func decode<T: Decodable>(_ type: T.Type, _ bytes: [UInt8], method: String) throws -> T {
        do {
            return try RPCCoding.decode(type, from: bytes)
        } catch {
            throw GuildClientError.invalidResponse("\(method): \(error)")
        }
    }
}
