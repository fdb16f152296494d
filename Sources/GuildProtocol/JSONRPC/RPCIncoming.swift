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
        let top: JSONScanner.Value
        do {
            top = try scanner.scan(bytes)
        } catch {
            throw .parseError("\(error)")
        }
        switch top.kind {
        case .object:
            return [try Self.message(top, in: bytes, scanner: scanner)]
        case .array:
            var result: [RPCIncoming] = []
            // One unreadable entry must not cost the others their replies.
            for element in scanner.elements(of: top, in: bytes) where element.kind == .object {
                if let message = try? Self.message(element, in: bytes, scanner: scanner) { result.append(message) }
            }
            return result
        default:
            throw .parseError("a message must be an object or an array")
        }
    }

    private static func message(
        _ value: JSONScanner.Value,
        in bytes: UnsafeRawBufferPointer,
        scanner: JSONScanner
    )
        throws(RPCError) -> RPCIncoming
    {
        var id: JSONScanner.Value?
        var method: JSONScanner.Value?
        var params: JSONScanner.Value?
        var result: JSONScanner.Value?
        var error: JSONScanner.Value?
        for member in scanner.members(of: value, in: bytes) {
            switch member.key {
            case "id": id = member.value
            case "method": method = member.value
            case "params": params = member.value
            case "result": result = member.value
            case "error": error = member.value
            default: continue
            }
        }
        if let method, method.kind == .string, id == nil {
            let name = (try? JSONScanner.string(method, in: bytes)) ?? ""
            return .notification(method: name, params: params.map { Array(bytes[$0.range]) })
        }
        guard let id else { throw .parseError("a response without an id") }
        let requestID = RequestID(json: String(decoding: UnsafeRawBufferPointer(rebasing: bytes[id.range]), as: UTF8.self))
        if let result {
            return .response(id: requestID, result: .success(Array(bytes[result.range])))
        }
        if let error {
            let decoded =
                (try? RPCCoding.decode(RPCError.self, from: bytes[error.range]))
                ?? RPCError(code: .internalError, message: "unreadable error object", data: nil)
            return .response(id: requestID, result: .failure(decoded))
        }
        throw .parseError("a response needs a result or an error")
    }
}
