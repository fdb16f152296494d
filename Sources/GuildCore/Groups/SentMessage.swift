/// What sending a group message did: its place in the group, or that an AVChatRoom over its rate dropped it.
public struct SentMessage: Sendable, Hashable {
    /// The message's sequence number in its group (1, 2, ...); 0 when it was discarded.
    public var messageSeq: Int64
    /// The message's unique id.
    public var msgID: String
    /// When it was sent, ms since the Unix epoch.
    public var time: Int64
    /// False when an AVChatRoom over its rate discarded it (nobody received it).
    public var delivered: Bool

    /// Creates a receipt.
    public init(messageSeq: Int64, msgID: String, time: Int64, delivered: Bool) {
        self.messageSeq = messageSeq
        self.msgID = msgID
        self.time = time
        self.delivered = delivered
    }
}
