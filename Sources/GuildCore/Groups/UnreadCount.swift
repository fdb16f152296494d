/// A member's unread state in one group.
public struct UnreadCount: Sendable, Hashable {
    public var groupID: String
    /// Messages after the member's read mark (not their own); 0 in types without unread counts.
    public var unread: Int64
    /// A message since the read mark mentions the member.
    public var mentioned: Bool
    /// The member chose `RECEIVE_NOT_NOTIFY`: show a badge without the number.
    public var badgeOnly: Bool
    /// The seq the member has read up to.
    public var readSeq: Int64

    /// Creates a count.
    public init(groupID: String, unread: Int64, mentioned: Bool, badgeOnly: Bool, readSeq: Int64) {
        self.groupID = groupID
        self.unread = unread
        self.mentioned = mentioned
        self.badgeOnly = badgeOnly
        self.readSeq = readSeq
    }
}
