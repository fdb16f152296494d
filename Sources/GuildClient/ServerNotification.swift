import GuildJSON
import GuildProtocol

/// A notification pushed by the daemon, such as `events.event`.
public struct ServerNotification: Sendable {
    /// The notification's method.
    public var method: String
    /// The raw JSON text of its params.
    public var params: [UInt8]?

    /// Creates a notification.
    public init(method: String, params: [UInt8]?) {
        self.method = method
        self.params = params
    }

    /// Decodes the params as `T`.
    public func decodeParams<T: Decodable>(as type: T.Type) throws -> T {
        guard let params else { throw GuildClientError.invalidResponse("notification \(self.method) has no params") }
        return try RPCCoding.decode(type, from: params)
    }
}

/// One entry of a batch: a call, or a notification (which gets no reply).
public struct BatchEntry: Sendable {
    /// The method.
    public var method: String
    /// The params as JSON text, or nil.
    public var params: [UInt8]?
    /// Whether the entry is a notification.
    public var isNotification: Bool

    /// A call with typed params.
    public static func call<M: RPCMethod>(_ method: M.Type, _ params: M.Params) throws -> BatchEntry {
        BatchEntry(method: M.name, params: try RPCCoding.encode(params), isNotification: false)
    }

    /// A call with untyped params.
    public static func call(_ method: String, params: JSONValue? = nil) throws -> BatchEntry {
        BatchEntry(method: method, params: try params.map { try RPCCoding.encode($0) }, isNotification: false)
    }

    /// A notification with untyped params.
    public static func notification(_ method: String, params: JSONValue? = nil) throws -> BatchEntry {
        BatchEntry(method: method, params: try params.map { try RPCCoding.encode($0) }, isNotification: true)
    }
}
