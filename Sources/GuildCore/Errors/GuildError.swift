/// A domain failure: what went wrong, in terms a client can act on.
///
/// Codes are a closed set (``Code``), generated from the wire contract's error catalog, where each is declared
/// once with its JSON-RPC code and `data.reason`; the server maps each back to that entry.
/// Two errors are equal when their codes are.
public struct GuildError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure.
    public var code: Code
    /// A sentence for humans; never contains secrets.
    public var message: String
    /// The input field at fault, when there is one.
    public var field: String?
    /// Where the error was raised.
    public var location: String
    /// Extra members for the error's `data` (e.g. `oldestSeq` for `cursorExpired`).
    public var details: [String: Int64] = [:]

    /// Creates an error.
    public init(_ code: Code, _ message: String, field: String? = nil, file: String = #fileID, line: Int = #line) {
        self.code = code
        self.message = message
        self.field = field
        self.location = "\(file):\(line)"
    }

    public static func == (lhs: GuildError, rhs: GuildError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(self.code) }

    public var description: String {
        "\(self.code): \(self.message)" + (self.field.map { " [\($0)]" } ?? "")
    }
}

extension GuildError {
    /// A value failed a domain rule.
    public static func invalidInput(
        _ message: String,
        field: String,
        file: String = #fileID,
        line: Int = #line
    )
        -> GuildError
    {
        GuildError(.invalidInput, message, field: field, file: file, line: line)
    }
}
