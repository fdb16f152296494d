import FuzzSupport
import GuildProtocol

/// Checks `RequestParser` on one frame against the JSON-RPC 2.0 rules applied to the reference tree, and
/// checks that every reply the server would write for the frame is valid JSON-RPC.
enum RequestCheck {
    /// What an entry should be, read from the reference tree.
    enum Expected {
        case request(id: JSONTree?, method: [UInt8], params: JSONTree?)
        case invalid(id: JSONTree)
    }

    static func check(_ frame: [UInt8], limits: ParseHarness.Limits) {
        let parser = RequestParser(maximumDepth: limits.depth, maximumBatchSize: limits.batch)
        let parsed = parser.parse(frame)
        let tree: JSONTree
        do throws(ReferenceJSON.Failure) {
            tree = try ReferenceJSON.parse(frame, maximumDepth: limits.depth)
        } catch {
            guard case .failure(let rpcError) = parsed, rpcError.code == .parseError else {
                Invariant.fail("bad JSON (\(error)) not answered with -32700: \(parsed)", bytes: frame)
            }
            if error == .tooDeep {
                Invariant.check(rpcError.reason == ErrorReason.nestingTooDeep, "too deep without NESTING_TOO_DEEP", bytes: frame)
            }
            Self.checkReply(id: .null, error: rpcError)
            return
        }
        switch (tree, parsed) {
        case (.array(let elements), .failure(let rpcError)) where elements.isEmpty:
            Invariant.check(rpcError.code == .invalidRequest && rpcError.reason == ErrorReason.emptyBatch, "empty batch: \(rpcError)")
            Self.checkReply(id: .null, error: rpcError)
        case (.array(let elements), .failure(let rpcError)) where elements.count > limits.batch:
            Invariant.check(rpcError.code == .invalidRequest && rpcError.reason == ErrorReason.batchTooLarge, "big batch: \(rpcError)")
            Self.checkReply(id: .null, error: rpcError)
        case (.array(let elements), .batch(let entries)) where !elements.isEmpty && elements.count <= limits.batch:
            Invariant.check(entries.count == elements.count, "batch of \(elements.count) parsed as \(entries.count)", bytes: frame)
            for (entry, element) in zip(entries, elements) { Self.check(entry, against: element, frame: frame) }
        case (.array, _):
            Invariant.fail("batch parsed as \(parsed)", bytes: frame)
        case (_, .single(let entry)):
            Self.check(entry, against: tree, frame: frame)
        default:
            Invariant.fail("single message parsed as \(parsed)", bytes: frame)
        }
    }

    /// The JSON-RPC 2.0 reading of one message; duplicate members: the last wins.
    static func expected(_ tree: JSONTree) -> Expected {
        guard case .object = tree else { return .invalid(id: .null) }
        let id = tree.last("id")
        switch id {
        case nil, .string?, .number?, .null?: break
        default: return .invalid(id: .null)
        }
        guard tree.last("jsonrpc")?.isString("2.0") == true else { return .invalid(id: id ?? .null) }
        guard case .string(let method)? = tree.last("method") else { return .invalid(id: id ?? .null) }
        let params = tree.last("params")
        switch params {
        case nil, .array?, .object?: return .request(id: id, method: method, params: params)
        default: return .invalid(id: id ?? .null)
        }
    }

    static func check(_ entry: RPCFrame.Entry, against tree: JSONTree, frame: [UInt8]) {
        switch (entry, Self.expected(tree)) {
        case (.request(let request), .request(let id, let method, let params)):
            Invariant.check(Self.tree(request.id) == id, "request id \(String(describing: request.id)) differs", bytes: frame)
            Invariant.check(Array(request.method.utf8) == method, "method \(request.method.debugDescription) differs", bytes: frame)
            Invariant.check(request.params.flatMap { try? ReferenceJSON.parse($0) } == params, "params differ", bytes: frame)
            Invariant.check((request.params == nil) == (params == nil), "params presence differs", bytes: frame)
            if let id = request.id {
                Self.checkReply(id: id, error: .methodNotFound(request.method))
                var reply: [UInt8] = []
                RPCMessageWriter.appendResult(id: id, result: ReferenceJSON.write(params ?? .null), to: &reply)
                Self.checkEnvelope(reply, id: id, key: "result")
            }
        case (.invalid(let id, let error), .invalid(let expectedID)):
            Invariant.check(error.code == .invalidRequest, "invalid entry answered with \(error.code)", bytes: frame)
            Invariant.check(Self.tree(id) == expectedID, "invalid entry answered with id \(id)", bytes: frame)
            Self.checkReply(id: id, error: error)
        case (let entry, let expected):
            Invariant.fail("entry parsed as \(entry), expected \(expected)", bytes: frame)
        }
    }

    static func tree(_ id: RequestID?) -> JSONTree? {
        guard let id else { return nil }
        guard let tree = try? ReferenceJSON.parse(Array(id.json.utf8)) else {
            Invariant.fail("request id is not JSON: \(id.json.debugDescription)")
        }
        return tree
    }

    /// The error reply the server writes for `id` must be one valid JSON-RPC error object.
    static func checkReply(id: RequestID, error: RPCError) {
        var reply: [UInt8] = []
        RPCMessageWriter.appendError(id: id, error: error, to: &reply)
        let body = Self.checkEnvelope(reply, id: id, key: "error")
        Invariant.check(body?.last("code") == .number(String(error.code.rawValue)), "error code not written", bytes: reply)
        guard case .string? = body?.last("message") else { Invariant.fail("error message not a string", bytes: reply) }
    }

    @discardableResult
    static func checkEnvelope(_ reply: [UInt8], id: RequestID, key: String) -> JSONTree? {
        Invariant.check(!reply.contains(0x0A), "a reply contains a raw newline, which would split its frame", bytes: reply)
        guard let tree = try? ReferenceJSON.parse(reply) else { Invariant.fail("reply is not JSON", bytes: reply) }
        Invariant.check(tree.last("jsonrpc")?.isString("2.0") == true, "reply without jsonrpc 2.0", bytes: reply)
        Invariant.check(tree.last("id") == Self.tree(id), "reply id differs", bytes: reply)
        return tree.last(key)
    }
}
