import GuildJSON
import GuildProtocol

extension GuildClient {
    /// Sends a text message to a group (`group.sendMessage`).
    public func sendMessage(
        groupID: String,
        text: String,
        priority: GroupMethods.MessagePriority? = nil,
        atUserList: [String]? = nil,
        cloudCustomData: String? = nil
    ) async throws -> GroupMethods.SendMessage.Result {
        let params = GroupMethods.SendMessage.Params(groupID: groupID, text: text, priority: priority, atUserList: atUserList)
        return try await self.send(params, cloudCustomData: cloudCustomData)
    }

    /// Sends a custom (JSON) message to a group (`group.sendMessage`).
    public func sendMessage(
        groupID: String,
        custom: JSONValue,
        priority: GroupMethods.MessagePriority? = nil,
        atUserList: [String]? = nil,
        cloudCustomData: String? = nil
    ) async throws -> GroupMethods.SendMessage.Result {
        let params = GroupMethods.SendMessage.Params(groupID: groupID, custom: custom, priority: priority, atUserList: atUserList)
        return try await self.send(params, cloudCustomData: cloudCustomData)
    }

    private func send(_ params: GroupMethods.SendMessage.Params, cloudCustomData: String?) async throws -> GroupMethods.SendMessage.Result {
        var params = params
        params.cloudCustomData = cloudCustomData
        return try await self.call(GroupMethods.SendMessage.self, params)
    }

    /// A page of a group's messages (`group.history`): from `seq` (the newest when nil), older or newer.
    public func history(
        groupID: String,
        seq: Int64? = nil,
        direction: GroupMethods.HistoryDirection = .older,
        count: Int? = nil
    ) async throws -> GroupMethods.History.Result {
        try await self.call(GroupMethods.History.self, .init(groupID: groupID, seq: seq, direction: direction, count: count))
    }

    /// The caller's unread counts (`group.unreadCounts`): in one group, or all of theirs when `groupID` is nil.
    public func unreadCounts(groupID: String? = nil) async throws -> GroupMethods.UnreadCounts.Result {
        try await self.call(GroupMethods.UnreadCounts.self, .init(groupID: groupID))
    }

    /// Marks a group read up to `seq`, or entirely (`group.markRead`).
    public func markRead(groupID: String, seq: Int64? = nil) async throws -> GroupMethods.UnreadCount {
        try await self.call(GroupMethods.MarkRead.self, .init(groupID: groupID, seq: seq))
    }

    /// Recalls a message (`group.recallMessage`).
    public func recallMessage(groupID: String, msgID: String) async throws {
        _ = try await self.call(GroupMethods.RecallMessage.self, .init(groupID: groupID, msgID: msgID))
    }
}
