import GuildJSON

/// A message a client receives: a response to one of its requests, or a notification from the daemon.
public enum RPCIncoming: Sendable {
    /// A success or error response; `result` holds the `result` member's exact JSON text.
    case response(id: RequestID, result: Result<[UInt8], RPCError>)
    /// A notification pushed by the daemon; `params` is the raw JSON text of its `params`, if any.
    case notification(method: String, params: [UInt8]?)

    /// Reads one line from the daemon: a single message or a batch reply.
    ///
    /// - Throws: `RPCError` with `parseError` when the line is not acceptable JSON-RPC.
    public static func parse(
        _ bytes: UnsafeRawBufferPointer,
        scanner: JSONScanner = JSONScanner(maximumDepth: 512)
    )
        throws(RPCError) -> [RPCIncoming]
    {
        var messages: [RPCIncoming] = []
        try Self.parse(bytes, scanner: scanner) { messages.append($0) }
        return messages
    }

    /// Reads one line from the daemon and hands each message in it to `message`, in order. A single message
    /// is read while the line is validated, in one pass.
    ///
    /// - Throws: `RPCError` with `parseError` when the line is not acceptable JSON-RPC.
    public static func parse(
        _ bytes: UnsafeRawBufferPointer,
        scanner: JSONScanner = JSONScanner(maximumDepth: 512),
        each message: (RPCIncoming) -> Void
    ) throws(RPCError) {
        let top: JSONScanner.Value
        var envelope = EnvelopeMembers()
        do {
            top = try scanner.scan(bytes) { key, value in envelope.take(key, value, in: bytes) }
        } catch {
            throw .parseError("\(error)")
        }
        switch top.kind {
        case .object:
            message(try envelope.message(in: bytes))
        case .array:
            // One unreadable entry must not cost the others their replies.
            for element in scanner.elements(of: top, in: bytes) where element.kind == .object {
                var entry = EnvelopeMembers()
                scanner.forEachMember(of: element, in: bytes) { key, value in entry.take(key, value, in: bytes) }
                if let read = try? entry.message(in: bytes) { message(read) }
            }
        default:
            throw .parseError("a message must be an object or an array")
        }
    }
}

extension EnvelopeMembers {
    /// The message these members make: a notification or a response.
    func message(in bytes: UnsafeRawBufferPointer) throws(RPCError) -> RPCIncoming {
        if let method = self.method, method.kind == .string, self.id == nil {
            let name = (try? JSONScanner.string(method, in: bytes)) ?? ""
            return .notification(method: name, params: self.params.map { Array(bytes[$0.range]) })
        }
        guard let id = self.id else { throw .parseError("a response without an id") }
        let requestID = RequestID(json: String(decoding: UnsafeRawBufferPointer(rebasing: bytes[id.range]), as: UTF8.self))
        if let result = self.result {
            return .response(id: requestID, result: .success(Array(bytes[result.range])))
        }
        if let error = self.error {
            let decoded =
                (try? RPCCoding.decode(RPCError.self, from: bytes[error.range]))
                ?? RPCError(code: .internalError, message: "unreadable error object", data: nil)
            return .response(id: requestID, result: .failure(decoded))
        }
        throw .parseError("a response needs a result or an error")
    }
}
