import GuildJSON

extension GroupService {
    /// The largest page of `group.history` (Tencent: 20).
    public static let maximumHistoryPage = 20

    /// A page of a group's messages by seq, from `seq` (included; the newest when nil) older or newer. Members
    /// see what the type allows (``GroupPolicy/preJoinHistory``: Meeting and Community members see messages
    /// from before they joined, others only those since); an app admin sees everything kept. AVChatRoom keeps
    /// no history.
    public func history(
        caller: Caller,
        groupID: String,
        seq: Int64?,
        direction: HistoryPage.Direction,
        count: Int?
    ) async throws -> HistoryPage {
        let size = count ?? Self.maximumHistoryPage
        guard (1...Self.maximumHistoryPage).contains(size) else {
            throw GuildError(.imInvalidParameters, "count must be 1 to \(Self.maximumHistoryPage)", field: "count")
        }
        return try await self.store.read { tx in
            let context = try self.load(tx, caller, groupID)
            guard context.group.type != .avChatRoom else {
                throw GuildError(.unsupported, "AVChatRoom groups keep no message history")
            }
            let userID = caller.session?.user.id
            var floor: Int64 = 0
            if let userID, !context.byAdmin {
                guard let mark = try tx.messages.readMark(groupID: groupID, userID: userID) else {
                    throw GuildError(.notAMember, "the caller is not a member of \(groupID)")
                }
                if !context.policy.preJoinHistory { floor = mark.baseSeq }
            }
            let last = try tx.messages.lastMessageSeq(groupID: groupID)
            if let seq, last == 0 || !(1...last).contains(seq) {
                throw GuildError(.imInvalidParameters, "seq must be 1 to the group's newest, \(last)", field: "seq")
            }
            let older = direction == .older
            let lowest = floor + 1
            let range: ClosedRange<Int64>
            if older {
                let highest = seq ?? last
                guard highest >= lowest else { return .init(messages: [], nextSeq: 0, isFinished: true) }
                range = lowest...highest
            } else {
                let from = max(seq ?? lowest, lowest)
                guard from <= last else { return .init(messages: [], nextSeq: 0, isFinished: true) }
                range = from...last
            }
            let found = try tx.messages.messages(groupID: groupID, in: range, descending: older, limit: size + 1)
            let page = Array(found.prefix(size))
            let more = found.count > size
            let next = more ? (older ? page[page.count - 1].seq - 1 : page[page.count - 1].seq + 1) : 0
            return .init(messages: page, nextSeq: next, isFinished: !more)
        }
    }

    /// Recalls a message: its sender within the recall window (2 minutes; after it 10031), the owner, an admin
    /// or an app admin at any time. The body is removed (from the message and its `newMessage` in the log)
    /// and the members who could see it get `messageRevoked`.
    public func recallMessage(caller: Caller, groupID: String, msgID: String) async throws {
        try await self.store.write { tx in
            let context = try self.load(tx, caller, groupID)
            guard context.group.type != .avChatRoom else {
                throw GuildError(.unsupported, "AVChatRoom groups keep no messages to recall")
            }
            if !context.byAdmin && context.membership == nil {
                throw GuildError(.notAMember, "the caller is not a member of \(groupID)")
            }
            guard let message = try tx.messages.message(groupID: groupID, msgID: msgID), message.body != nil else {
                throw GuildError(.messageNotFound, "\(groupID) holds no message \(msgID) (unknown, expired or already recalled)")
            }
            let manager = context.byAdmin || context.role == .owner || context.role == .admin
            if !manager {
                guard message.sender == context.actor else {
                    throw GuildError(.notAllowed, "only the sender, the owner or an admin may recall \(msgID)")
                }
                guard context.now - message.time <= self.messageOptions.recallWindowMilliseconds else {
                    throw GuildError(.recallTimeLimit, "\(msgID) was sent more than \(self.messageOptions.recallWindowMilliseconds / 1000) s ago")
                }
            }
            var stripped = context.event(
                .newMessage,
                changes: Self.eventChanges(seq: message.seq, msgID: message.msgID, priority: message.priority, body: nil)
            )
            stripped.actor = message.sender
            stripped.byAdmin = false
            stripped.time = message.time
            try tx.messages.revokeMessage(groupID: groupID, seq: message.seq, by: context.actor)
            // The message's `newMessage` keeps its place in the log for replay, without the body.
            try tx.rewrite(message.eventSeq, as: stripped)
            var event = context.event(.messageRevoked, changes: ["messageSeq": .int(message.seq), "msgID": .string(message.msgID)])
            var excluded = try tx.imGroups.membersNotReceiving(groupID: groupID)
            if !context.policy.preJoinHistory { excluded += try tx.messages.membersJoined(groupID: groupID, after: message.seq) }
            event.excluded = excluded
            try tx.append(event)
        }
    }

    /// Deletes messages older than the retention (and their `newMessage` events); returns how many messages.
    /// Both go in transactions of at most `batchSize` rows, paced by `pause` after each full batch, as the event
    /// log's retention does (``EventRepository/pruneEvents(keepCount:maxAgeMilliseconds:now:batchSize:pause:)``),
    /// so the writes that arrive meanwhile wait for one batch at most.
    public func pruneMessages(
        batchSize: Int = EventPruning.batchSize,
        pause: @Sendable (Duration) async throws -> Void = { _ in }
    ) async throws -> Int {
        let cutoff = self.now() - self.messageOptions.retentionMilliseconds
        _ = try await EventPruning.inBatches(of: batchSize, pause: pause) { limit in
            try await self.store.write { tx in try tx.messages.deleteMessageEvents(before: cutoff, limit: limit) }
        }
        return try await EventPruning.inBatches(of: batchSize, pause: pause) { limit in
            try await self.store.write { tx in try tx.messages.deleteMessages(before: cutoff, limit: limit) }
        }
    }
}
