import GuildJSON

extension GroupService {
    /// The caller's unread counts in one group (nil: every group they are a member of). Only the types with
    /// unread counts (``GroupPolicy/unreadCounts``) count; `NOT_RECEIVE` counts nothing; `RECEIVE_NOT_NOTIFY`
    /// is flagged `badgeOnly`.
    public func unreadCounts(caller: Caller, groupID: String?) async throws -> [UnreadCount] {
        let userID = try caller.requireUserID()
        return try await self.store.read { tx in
            guard let groupID else { return try tx.messages.readMarks(userID: userID).map(Self.count) }
            _ = try self.load(tx, caller, groupID)
            guard let mark = try tx.messages.readMark(groupID: groupID, userID: userID) else {
                throw GuildError(.notAMember, "the caller is not a member of \(groupID)")
            }
            return [Self.count(mark)]
        }
    }

    /// Moves the caller's read mark in a group to `seq` (the newest when nil; never backwards), clearing
    /// mentions up to it; the caller gets `unreadChanged`.
    public func markRead(caller: Caller, groupID: String, seq: Int64?) async throws -> UnreadCount {
        let userID = try caller.requireUserID()
        return try await self.store.write { tx in
            let context = try self.load(tx, caller, groupID)
            guard var mark = try tx.messages.readMark(groupID: groupID, userID: userID) else {
                throw GuildError(.notAMember, "the caller is not a member of \(groupID)")
            }
            if let seq, !(0...mark.lastSeq).contains(seq) {
                throw GuildError(.imInvalidParameters, "seq must be 0 to the group's newest, \(mark.lastSeq)", field: "seq")
            }
            let target = max(seq ?? mark.lastSeq, mark.readSeq)
            if target != mark.readSeq {
                try tx.messages.setReadSeq(groupID: groupID, userID: userID, seq: target)
                mark = try tx.messages.readMark(groupID: groupID, userID: userID) ?? mark
            }
            let count = Self.count(mark)
            try tx.append(
                context.event(
                    .unreadChanged,
                    users: [userID],
                    changes: ["unread": .int(count.unread), "mentioned": .bool(count.mentioned), "readSeq": .int(count.readSeq)],
                    audience: .named
                )
            )
            return count
        }
    }

    /// A read mark's count: the messages after the mark that are not the member's own.
    static func count(_ mark: ReadMark) -> UnreadCount {
        let read = max(mark.readSeq, mark.baseSeq)
        let counts = GroupPolicy.of(mark.type).unreadCounts && mark.receiveOption != .notReceive
        return UnreadCount(
            groupID: mark.groupID,
            unread: counts ? max(0, mark.lastSeq - read - mark.ownUnread) : 0,
            mentioned: mark.receiveOption != .notReceive && max(mark.mentionSeq, mark.atAllSeq) > read,
            badgeOnly: mark.receiveOption == .receiveNotNotify,
            readSeq: read
        )
    }
}
