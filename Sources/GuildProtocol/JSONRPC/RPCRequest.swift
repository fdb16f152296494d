import GuildJSON

/// A request or notification as received: its envelope read, its `params` kept as raw JSON.
public struct RPCRequest: Sendable {
    /// The request id; `nil` for a notification, which is never answered.
    public var id: RequestID?
    /// The method name.
    public var method: String
    /// The `params` member's exact JSON text (an object or an array), or `nil` when absent.
    public var params: [UInt8]?

    /// Creates a request.
    public init(id: RequestID?, method: String, params: [UInt8]?) {
        self.id = id
        self.method = method
        self.params = params
    }

    /// Whether this is a notification (no `id` member).
    public var isNotification: Bool { self.id == nil }
}

/// One line of input, read as JSON-RPC: a single message, a batch, or an error that gets one reply.
public enum RPCFrame: Sendable {
    /// One entry of a frame: a valid request, or an invalid one that is answered with an error.
    public enum Entry: Sendable {
        case request(RPCRequest)
        case invalid(id: RequestID, error: RPCError)
    }

    case single(Entry)
    case batch([Entry])
    /// The whole line is answered by one error with `id: null` (parse error, empty or oversized batch).
    case failure(RPCError)
}

/// Reads request lines. Stateless and cheap to copy.
public struct RequestParser: Sendable {
    /// The JSON scanner and its nesting limit.
    public var scanner: JSONScanner
    /// The most entries a batch may have.
    public var maximumBatchSize: Int

    /// Creates a parser.
    public init(maximumDepth: Int = 128, maximumBatchSize: Int = 1000) {
        self.scanner = JSONScanner(maximumDepth: maximumDepth)
        self.maximumBatchSize = maximumBatchSize
    }

    /// Parses one line (without its terminating newline).
    public func parse(_ bytes: UnsafeRawBufferPointer) -> RPCFrame {
        let top: JSONScanner.Value
        // A single request's envelope is read while the line is validated, in one pass.
        var envelope = EnvelopeMembers()
        do {
            top = try self.scanner.scan(bytes) { key, value in envelope.take(key, value, in: bytes) }
        } catch {
            switch error {
            case .invalid(let offset, let reason):
                return .failure(.parseError("\(reason) at byte \(offset)"))
            case .tooDeep(let limit):
                return .failure(
                    RPCError(
                        code: .parseError,
                        message: "Parse error: JSON nested deeper than \(limit) levels",
                        reason: ErrorReason.nestingTooDeep
                    )
                )
            }
        }
        switch top.kind {
        case .array:
            let elements = self.scanner.elements(of: top, in: bytes)
            if elements.isEmpty {
                return .failure(.invalidRequest("empty batch", reason: ErrorReason.emptyBatch))
            }
            if elements.count > self.maximumBatchSize {
                return .failure(
                    .invalidRequest(
                        "batch of \(elements.count) entries exceeds the limit of \(self.maximumBatchSize)",
                        reason: ErrorReason.batchTooLarge
                    )
                )
            }
            return .batch(elements.map { self.entry($0, in: bytes) })
        case .object:
            return .single(envelope.entry(in: bytes))
        default:
            return .single(.invalid(id: .null, error: .invalidRequest("a request must be a JSON object")))
        }
    }

    /// Parses a line held in an array.
    public func parse(_ bytes: [UInt8]) -> RPCFrame {
        bytes.withUnsafeBytes { self.parse($0) }
    }

    /// A batch entry: its members located in the validated line.
    private func entry(_ value: JSONScanner.Value, in bytes: UnsafeRawBufferPointer) -> RPCFrame.Entry {
        guard value.kind == .object else {
            return .invalid(id: .null, error: .invalidRequest("a request must be a JSON object"))
        }
        var envelope = EnvelopeMembers()
        self.scanner.forEachMember(of: value, in: bytes) { key, value in envelope.take(key, value, in: bytes) }
        return envelope.entry(in: bytes)
    }
}

extension EnvelopeMembers {
    /// The request these members make, or why they make none.
    func entry(in bytes: UnsafeRawBufferPointer) -> RPCFrame.Entry {
        var id: RequestID?
        if let idValue = self.id {
            switch idValue.kind {
            case .string, .number, .null:
                id = RequestID(json: String(decoding: UnsafeRawBufferPointer(rebasing: bytes[idValue.range]), as: UTF8.self))
            default:
                return .invalid(id: .null, error: .invalidRequest("\"id\" must be a string, a number or null"))
            }
        }
        let replyID = id ?? .null
        guard let version = self.version, version.kind == .string, JSONScanner.string(version, in: bytes, is: "2.0") else {
            return .invalid(id: replyID, error: .invalidRequest("\"jsonrpc\" must be \"2.0\""))
        }
        guard let method = self.method, method.kind == .string, let name = try? JSONScanner.string(method, in: bytes) else {
            return .invalid(id: replyID, error: .invalidRequest("\"method\" must be a string"))
        }
        var paramBytes: [UInt8]?
        if let params = self.params {
            guard params.kind == .object || params.kind == .array else {
                return .invalid(id: replyID, error: .invalidRequest("\"params\" must be an object or an array"))
            }
            paramBytes = Array(bytes[params.range])
        }
        return .request(RPCRequest(id: id, method: name, params: paramBytes))
    }
}
