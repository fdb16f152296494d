import GuildJSON

/// A JSON-RPC request id, kept as its exact JSON text so a reply echoes it byte for byte.
///
/// JSON-RPC 2.0 allows a string, a number or `null`. The server never reinterprets an id: `1.0` comes back
/// as `1.0`, and a string comes back with the same escapes it was sent with.
public struct RequestID: Hashable, Sendable, CustomStringConvertible {
    /// The id's JSON text (`1`, `"abc"` or `null`).
    public let json: String

    /// Wraps JSON text that is known to be a valid string, number or `null`.
    public init(json: String) {
        self.json = json
    }

    /// A numeric id.
    public init(_ value: Int) {
        self.json = String(value)
    }

    /// A string id.
    public init(_ value: String) {
        var bytes: [UInt8] = []
        JSONText.appendString(value, to: &bytes)
        self.json = String(decoding: bytes, as: UTF8.self)
    }

    /// The `null` id, used when a request's id could not be determined.
    public static let null = RequestID(json: "null")

    /// The id as an integer, when it is one.
    public var intValue: Int? { Int(self.json) }

    public var description: String { self.json }
}
