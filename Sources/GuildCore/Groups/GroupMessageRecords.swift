import GuildJSON

/// A message's body as stored: text or custom JSON, with the data the sender attached.
public struct MessageBody: Codable, Hashable, Sendable {
    /// The `atUserList` entry that mentions every member (Tencent's `kImSDK_MesssageAtALL`).
    public static let mentionAll = "__kImSDK_MesssageAtALL__"

    public var text: String?
    public var custom: JSONValue?
    public var cloudCustomData: String?
    public var atUserList: [String]?

    /// Creates a body.
    public init(text: String? = nil, custom: JSONValue? = nil, cloudCustomData: String? = nil, atUserList: [String]? = nil) {
        self.text = text
        self.custom = custom
        self.cloudCustomData = cloudCustomData
        self.atUserList = atUserList
    }
}

/// A stored group message; `body` is nil once it was recalled.
public struct StoredMessage: Sendable, Hashable {
    public var groupID: String
    public var seq: Int64
    public var msgID: String
    public var sender: String
    public var time: Int64
    public var priority: MessagePriority
    public var body: MessageBody?
    /// The event-log seq of its `newMessage`.
    public var eventSeq: Int64

    /// The text body; nil for a custom or recalled message.
    public var text: String? { self.body?.text }
    /// Whether it was recalled (its body is gone).
    public var revoked: Bool { self.body == nil }

    /// Whether the message mentions `userID` by name or mentions all members (false for nobody).
    public func mentions(_ userID: String?) -> Bool {
        guard let mentioned = self.body?.atUserList else { return false }
        return mentioned.contains(MessageBody.mentionAll) || userID.map(mentioned.contains) == true
    }

    /// Creates a stored message.
    public init(
        groupID: String,
        seq: Int64,
        msgID: String,
        sender: String,
        time: Int64,
        priority: MessagePriority,
        body: MessageBody?,
        eventSeq: Int64
    ) {
        self.groupID = groupID
        self.seq = seq
        self.msgID = msgID
        self.sender = sender
        self.time = time
        self.priority = priority
        self.body = body
        self.eventSeq = eventSeq
    }
}

/// A member's read state in one group, with what it is measured against.
public struct ReadMark: Sendable, Hashable {
    public var groupID: String
    public var type: GroupType
    public var receiveOption: ReceiveOption
    /// The group's newest message seq.
    public var lastSeq: Int64
    /// The newest seq that mentioned all members.
    public var atAllSeq: Int64
    /// The group's newest seq when the member joined (Work and Public members see only later messages).
    public var baseSeq: Int64
    /// Read up to this seq.
    public var readSeq: Int64
    /// The newest seq that mentioned this member by name.
    public var mentionSeq: Int64
    /// The member's own messages after `readSeq` (they do not count as unread).
    public var ownUnread: Int64

    /// Creates a read mark.
    public init(
        groupID: String,
        type: GroupType,
        receiveOption: ReceiveOption,
        lastSeq: Int64,
        atAllSeq: Int64,
        baseSeq: Int64,
        readSeq: Int64,
        mentionSeq: Int64,
        ownUnread: Int64
    ) {
        self.groupID = groupID
        self.type = type
        self.receiveOption = receiveOption
        self.lastSeq = lastSeq
        self.atAllSeq = atAllSeq
        self.baseSeq = baseSeq
        self.readSeq = readSeq
        self.mentionSeq = mentionSeq
        self.ownUnread = ownUnread
    }
}

/// The group messages' records: stored messages (not AVChatRoom's), and each member's read mark (created
/// with the membership by the store).
public protocol GroupMessageRecords {
    /// Stores a message.
    func insertMessage(_ message: StoredMessage) throws
    /// Up to `limit` messages with seq in `range`, newest first when `descending`.
    func messages(groupID: String, in range: ClosedRange<Int64>, descending: Bool, limit: Int) throws -> [StoredMessage]
    /// A message by its id.
    func message(groupID: String, msgID: String) throws -> StoredMessage?
    /// Removes a message's body, noting who recalled it.
    func revokeMessage(groupID: String, seq: Int64, by userID: String?) throws
    /// Deletes at most `limit` group `newMessage` events from before `time` (AVChatRoom's live-only ones too), the
    /// oldest first; returns how many.
    func deleteMessageEvents(before time: Int64, limit: Int) throws -> Int
    /// Deletes at most `limit` messages sent before `time`, the oldest first; returns how many.
    func deleteMessages(before time: Int64, limit: Int) throws -> Int
    /// The group's newest message seq (0 before the first).
    func lastMessageSeq(groupID: String) throws -> Int64
    /// A member's read mark; nil for a non-member.
    func readMark(groupID: String, userID: String) throws -> ReadMark?
    /// The read marks of every group the user is a member of.
    func readMarks(userID: String) throws -> [ReadMark]
    /// Sets a member's read mark, recounting their own messages after it.
    func setReadSeq(groupID: String, userID: String, seq: Int64) throws
    /// Notes the sender's own message `seq`: it does not count as unread for them.
    func noteOwnMessage(groupID: String, userID: String, seq: Int64) throws
    /// Notes that message `seq` mentions these members (or all of them).
    func noteMentions(groupID: String, userIDs: [String], all: Bool, seq: Int64) throws
    /// Members who joined after message `seq` was sent.
    func membersJoined(groupID: String, after seq: Int64) throws -> [String]
}
