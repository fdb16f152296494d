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
