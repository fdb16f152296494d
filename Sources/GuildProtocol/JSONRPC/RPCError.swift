import GuildJSON

/// A JSON-RPC error object: `{code, message, data}`. Guild always sends `data.reason`.
public struct RPCError: Error, Codable, Hashable, Sendable, CustomStringConvertible {
    /// The numeric code.
    public var code: ErrorCode
    /// A short human-readable message.
    public var message: String
    /// Structured details: always an object with `reason`, sometimes `field` and other members.
    public var data: JSONValue?

    /// Creates an error with `data.reason` and optional extra members.
    public init(code: ErrorCode, message: String, reason: String, field: String? = nil, extra: [String: JSONValue] = [:]) {
        self.code = code
        self.message = message
        var data = extra
        data["reason"] = .string(reason)
        if let field { data["field"] = .string(field) }
        self.data = .object(data)
    }

    /// Creates an error from its parts as received.
    public init(code: ErrorCode, message: String, data: JSONValue?) {
        self.code = code
        self.message = message
        self.data = data
    }

    /// `data.reason`, when present.
    public var reason: String? { self.data?["reason"]?.stringValue }

    /// `data.field`, when present.
    public var field: String? { self.data?["field"]?.stringValue }

    public var description: String {
        var text = "\(self.message) (\(self.code.rawValue)"
        if let reason = self.reason { text += " \(reason)" }
        if let field = self.field { text += ", field \(field)" }
        return text + ")"
    }
}

extension RPCError {
    /// -32700: the text was not JSON.
    public static func parseError(_ detail: String) -> RPCError {
        RPCError(code: .parseError, message: "Parse error: \(detail)", reason: ErrorReason.parseError)
    }

    /// -32600: not a valid request object.
    public static func invalidRequest(_ detail: String, reason: String = ErrorReason.invalidRequest) -> RPCError {
        RPCError(code: .invalidRequest, message: "Invalid Request: \(detail)", reason: reason)
    }

    /// -32601: no such method.
    public static func methodNotFound(_ method: String) -> RPCError {
        RPCError(
            code: .methodNotFound,
            message: "Method not found: \(method)",
            reason: ErrorReason.methodNotFound,
            extra: ["method": .string(method)]
        )
    }

    /// -32602: a parameter is missing, of the wrong type, or not acceptable.
    public static func invalidParams(
        _ detail: String,
        field: String?,
        reason: String = ErrorReason.invalidParams
    ) -> RPCError {
        RPCError(code: .invalidParams, message: "Invalid params: \(detail)", reason: reason, field: field)
    }

    /// -32603: something failed inside the daemon; the details are in its log, not here.
    public static let internalError = RPCError(
        code: .internalError,
        message: "Internal error",
        reason: ErrorReason.internalError
    )
}
