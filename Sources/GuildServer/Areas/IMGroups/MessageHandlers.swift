import GuildCore
import GuildProtocol

extension MethodRegistry {
    /// The IM groups area's message methods: send, history, unread counts, read marks, recall.
    mutating func registerMessageMethods(_ groups: GroupService) {
        self.register(GroupMethods.SendMessage.self) { params, context in
            try await groups.sendMessage(caller: context.caller, params)
        }
        self.register(GroupMethods.History.self) { params, context in
            try await groups.history(
                caller: context.caller,
                groupID: params.groupID,
                seq: params.seq,
                direction: params.direction ?? .older,
                count: params.count
            )
        }
        self.register(GroupMethods.UnreadCounts.self) { params, context in
            let groups = try await groups.unreadCounts(caller: context.caller, groupID: params.groupID)
            return .init(groups: groups, total: groups.reduce(0) { $0 + ($1.badgeOnly ? 0 : $1.unread) })
        }
        self.register(GroupMethods.MarkRead.self) { params, context in
            try await groups.markRead(caller: context.caller, groupID: params.groupID, seq: params.seq)
        }
        self.register(GroupMethods.RecallMessage.self) { params, context in
            try await groups.recallMessage(caller: context.caller, groupID: params.groupID, msgID: params.msgID)
            return true
        }
    }
}
