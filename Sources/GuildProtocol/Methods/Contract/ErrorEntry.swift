/// One error of the catalog: a code, one of its `data.reason` values, and what `protocol/errors.md` and
/// `protocol/openrpc.json` say about it.
public struct ErrorEntry: Sendable {
    /// The JSON-RPC code.
    public var code: ErrorCode
    /// The `data.reason`.
    public var reason: String
    /// One line for a method's `errors` in `protocol/openrpc.json` (needed when a method declares the reason).
    public var summary: String?
    /// When the error is sent: the `when` cell of `protocol/errors.md` (Markdown).
    public var when: String
    /// Members `data` carries besides `reason`.
    public var extra: [String]

    /// Creates an entry.
    public init(_ code: ErrorCode, _ reason: String, summary: String? = nil, when: String, extra: [String] = []) {
        self.code = code
        self.reason = reason
        self.summary = summary
        self.when = when
        self.extra = extra
    }
}
