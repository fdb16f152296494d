import GuildCore
import GuildProtocol

// The message methods' wire types made from the rules' values, and back.

extension OutgoingMessage {
    /// The message `group.sendMessage` asks to send.
    init(_ params: GroupMethods.SendMessage.Params) {
        self.init(
            groupID: params.groupID,
            text: params.text,
            custom: params.custom,
            priority: params.priority.map(MessagePriority.init),
            atUserList: params.atUserList,
            cloudCustomData: params.cloudCustomData
        )
    }
}

extension MessagePriority {
    init(_ wire: GroupMethods.MessagePriority) {
        switch wire {
        case .high: self = .high
        case .normal: self = .normal
        case .low: self = .low
        case .lowest: self = .lowest
        }
    }
}

extension GroupMethods.MessagePriority {
    init(_ priority: MessagePriority) {
        switch priority {
        case .high: self = .high
        case .normal: self = .normal
        case .low: self = .low
        case .lowest: self = .lowest
        }
    }
}

extension HistoryPage.Direction {
    init(_ wire: GroupMethods.HistoryDirection) {
        switch wire {
        case .older: self = .older
        case .newer: self = .newer
        }
    }
}

extension GroupMethods.SendMessage.Result {
    init(_ sent: SentMessage) {
        self.init(messageSeq: sent.messageSeq, msgID: sent.msgID, time: sent.time, delivered: sent.delivered)
    }
}

extension GroupMethods.History.Result {
    /// A page as `reader` sees it (`mentionsMe` is about them).
    init(_ page: HistoryPage, reader: String?) {
        self.init(
            messages: page.messages.map { GroupMethods.GroupMessage($0, reader: reader) },
            nextSeq: page.nextSeq,
            isFinished: page.isFinished
        )
    }
}

extension GroupMethods.GroupMessage {
    /// A stored message as `group.history` returns it to `reader`.
    init(_ message: StoredMessage, reader: String?) {
        self.init(
            seq: message.seq,
            msgID: message.msgID,
            sender: message.sender,
            time: message.time,
            priority: GroupMethods.MessagePriority(message.priority),
            text: message.body?.text,
            custom: message.body?.custom,
            cloudCustomData: message.body?.cloudCustomData,
            atUserList: message.body?.atUserList,
            mentionsMe: message.mentions(reader),
            revoked: message.revoked
        )
    }
}

extension GroupMethods.UnreadCount {
    init(_ count: UnreadCount) {
        self.init(groupID: count.groupID, unread: count.unread, mentioned: count.mentioned, badgeOnly: count.badgeOnly, readSeq: count.readSeq)
    }
}
