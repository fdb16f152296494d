/// A page of a group's messages (`group.history`), as the reader may see them.
public struct HistoryPage: Sendable, Hashable {
    /// Which way a page goes from its starting seq.
    public enum Direction: String, Sendable, Hashable, CaseIterable {
        case older
        case newer
    }

    /// In paging order: descending seq for `older`, ascending for `newer`.
    public var messages: [StoredMessage]
    /// The next page's starting seq (same direction); 0 when there is nothing more to see.
    public var nextSeq: Int64
    public var isFinished: Bool

    /// Creates a page.
    public init(messages: [StoredMessage], nextSeq: Int64, isFinished: Bool) {
        self.messages = messages
        self.nextSeq = nextSeq
        self.isFinished = isFinished
    }
}
