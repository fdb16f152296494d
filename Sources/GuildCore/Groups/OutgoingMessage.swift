import GuildJSON

/// A message a member sends to a group (`group.sendMessage`): exactly one of text and custom JSON, with the
/// data the sender attaches. ``GroupService/sendMessage(caller:_:)`` checks it.
public struct OutgoingMessage: Sendable, Hashable {
    public var groupID: String
    /// A text body; exactly one of `text` and `custom`.
    public var text: String?
    /// A custom body: any JSON value.
    public var custom: JSONValue?
    /// `normal` when nil.
    public var priority: MessagePriority?
    /// Members to mention (at most 30), or ``MessageBody/mentionAll``.
    public var atUserList: [String]?
    /// Opaque data carried with the message.
    public var cloudCustomData: String?

    /// Creates a message to send.
    public init(
        groupID: String,
        text: String? = nil,
        custom: JSONValue? = nil,
        priority: MessagePriority? = nil,
        atUserList: [String]? = nil,
        cloudCustomData: String? = nil
    ) {
        self.groupID = groupID
        self.text = text
        self.custom = custom
        self.priority = priority
        self.atUserList = atUserList
        self.cloudCustomData = cloudCustomData
    }
}
