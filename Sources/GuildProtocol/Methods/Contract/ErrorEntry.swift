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

/// A section of `protocol/errors.md`: a heading, an introduction, a table of codes and reasons, and text
/// after the table.
public struct ErrorSection: Sendable {
    /// The heading.
    public var title: String
    /// Markdown between the heading and the table.
    public var introduction: String
    /// Whether the table has the column of extra `data` members.
    public var listsExtraMembers: Bool
    /// The rows.
    public var entries: [ErrorEntry]
    /// Markdown after the table.
    public var closing: String

    /// Creates a section.
    public init(title: String, introduction: String, listsExtraMembers: Bool, entries: [ErrorEntry], closing: String) {
        self.title = title
        self.introduction = introduction
        self.listsExtraMembers = listsExtraMembers
        self.entries = entries
        self.closing = closing
    }
}
