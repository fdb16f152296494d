import GuildCore
import GuildProtocol

extension MethodRegistry {
    /// The IM groups area's message methods: send, history, unread counts, read marks, recall.
    mutating func registerMessageMethods(_ groups: GroupService) {
        self.register(GroupMethods.SendMessage.self) { params, context in
            GroupMethods.SendMessage.Result(try await groups.sendMessage(caller: context.caller, OutgoingMessage(params)))
        }
        self.register(GroupMethods.History.self) { params, context in
            let page = try await groups.history(
                caller: context.caller,
                groupID: params.groupID,
                seq: params.seq,
                direction: params.direction.map(HistoryPage.Direction.init) ?? .older,
                count: params.count
            )
            return .init(page, reader: context.caller.session?.user.id)
        }
        self.register(GroupMethods.UnreadCounts.self) { params, context in
            let counts = try await groups.unreadCounts(caller: context.caller, groupID: params.groupID)
            return .init(groups: counts.map(GroupMethods.UnreadCount.init), total: counts.reduce(0) { $0 + ($1.badgeOnly ? 0 : $1.unread) })
        }
        self.register(GroupMethods.MarkRead.self) { params, context in
            GroupMethods.UnreadCount(try await groups.markRead(caller: context.caller, groupID: params.groupID, seq: params.seq))
        }
        self.register(GroupMethods.RecallMessage.self) { params, context in
            try await groups.recallMessage(caller: context.caller, groupID: params.groupID, msgID: params.msgID)
            return true
        }
    }
}
