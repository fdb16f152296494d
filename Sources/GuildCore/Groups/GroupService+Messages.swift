import GuildJSON

extension GroupService {
    /// The largest message body: text (or custom JSON) and cloudCustomData together (Tencent: 12 KB).
    public static let maximumMessageBytes = 12 * 1024
    /// The most entries in `atUserList` (Tencent: 30, the all marker included).
    public static let maximumMentions = 30

    /// Sends a text message; returns its per-group seq. See ``sendMessage(caller:_:)``.
    public func sendMessage(caller: Caller, groupID: String, text: String) async throws -> Int64 {
        try await self.sendMessage(caller: caller, .init(groupID: groupID, text: text)).messageSeq
    }

    /// Sends a message to a group's members (`newMessage`, with a per-group seq 1, 2, ... and a unique
    /// msgID), stores it for history (not in AVChatRoom), and counts it unread for the other members. A
    /// muted member, or an ordinary member while the whole group is muted, gets 10017; over the per-user
    /// rate, 10023. Members whose receive option is `NOT_RECEIVE` get no copy. An AVChatRoom delivers at most
    /// its rate per second, discarding lower priorities first: the result says whether it was delivered.
    public func sendMessage(caller: Caller, _ params: OutgoingMessage) async throws -> SentMessage {
        let userID = try caller.requireUserID()
        let body = try Self.validate(params)
        let priority = params.priority ?? .normal
        let mentions = params.atUserList.map { GroupService.unique($0) } ?? []
        guard self.senderLimiter.allow(userID, now: self.now()) else {
            throw GuildError(.sendRateLimited, "\(userID) sent more than \(self.messageOptions.messagesPerUserPerSecond) messages this second")
        }
        let draft = Draft(userID: userID, body: body, priority: priority, mentions: mentions)
        do {
            return try await self.commit(caller, params.groupID, draft, live: false)
        } catch is LiveRoomSend {
            // An AVChatRoom: the sender is checked, waits for the room's window, and is sent only if kept.
            try await self.store.read { tx in
                try self.checkSender(tx, try self.load(tx, caller, params.groupID), userID: userID, mentions: mentions)
            }
            guard await self.liveRoomGate.admit(groupID: params.groupID, priority: priority) else {
                return SentMessage(messageSeq: 0, msgID: Self.newMessageID(seq: 0, now: self.now()), time: self.now(), delivered: false)
            }
            return try await self.commit(caller, params.groupID, draft, live: true)
        }
    }

    /// A checked message on its way to the store.
    private struct Draft: Sendable {
        var userID: String
        var body: MessageBody
        var priority: MessagePriority
        var mentions: [String]
    }

    /// Thrown (before anything is written) by ``commit`` when the group is an AVChatRoom and the message has
    /// not passed its rate gate yet.
    private struct LiveRoomSend: Error {}

    /// Checks and stores a message in one transaction: its seq, its event, its record and read marks.
    private func commit(_ caller: Caller, _ groupID: String, _ draft: Draft, live: Bool) async throws -> SentMessage {
        let named = draft.mentions.filter { $0 != MessageBody.mentionAll }
        return try await self.store.write { tx in
            let context = try self.load(tx, caller, groupID)
            if context.group.type == .avChatRoom && !live { throw LiveRoomSend() }
            try self.checkSender(tx, context, userID: draft.userID, mentions: draft.mentions)
            if !named.isEmpty {
                let members = Set(try tx.imGroups.memberInfos(groupID: groupID, userIDs: named).map(\.userID))
                let outsiders = named.filter { !members.contains($0) }
                if !outsiders.isEmpty {
                    throw GuildError(
                        .imInvalidParameters,
                        "atUserList names users who are not members: \(outsiders.joined(separator: ", "))",
                        field: "atUserList"
                    )
                }
            }
            let seq = try tx.imGroups.nextMessageSeq(groupID: groupID)
            let msgID = Self.newMessageID(seq: seq, now: context.now)
            var event = context.event(.newMessage, changes: Self.eventChanges(seq: seq, msgID: msgID, priority: draft.priority, body: draft.body))
            // Members who chose NOT_RECEIVE get no copy, live or on replay.
            event.excluded = try tx.imGroups.membersNotReceiving(groupID: groupID)
            event.liveOnly = live
            let eventSeq = try tx.append(event)
            if !live {
                try tx.messages.insertMessage(
                    StoredMessage(
                        groupID: groupID,
                        seq: seq,
                        msgID: msgID,
                        sender: draft.userID,
                        time: context.now,
                        priority: draft.priority,
                        body: draft.body,
                        eventSeq: eventSeq
                    )
                )
                try tx.messages.noteOwnMessage(groupID: groupID, userID: draft.userID, seq: seq)
                if !draft.mentions.isEmpty {
                    try tx.messages.noteMentions(groupID: groupID, userIDs: named, all: draft.mentions.contains(MessageBody.mentionAll), seq: seq)
                }
            }
            return SentMessage(messageSeq: seq, msgID: msgID, time: context.now, delivered: true)
        }
    }

    /// The sender must be a member, not muted, and not mention anyone in an AVChatRoom.
    private func checkSender(_ tx: any Transaction, _ context: Context, userID: String, mentions: [String]) throws {
        guard let membership = context.membership else {
            throw GuildError(.notAMember, "the caller is not a member of \(context.group.id)")
        }
        let until = try tx.imGroups.muteUntil(groupID: context.group.id, userID: userID)
        if until > context.now {
            throw GuildError(.muted, "the caller is muted in \(context.group.id) until \(until)")
        }
        if context.group.allMuted && membership.role == .member {
            throw GuildError(.muted, "every ordinary member of \(context.group.id) is muted")
        }
        if !mentions.isEmpty && context.group.type == .avChatRoom {
            throw GuildError(.unsupported, "AVChatRoom messages mention nobody", field: "atUserList")
        }
    }

    /// The body of a valid send: exactly one of text and custom, at most 12 KB with cloudCustomData, at most 30
    /// mentions.
    static func validate(_ params: OutgoingMessage) throws -> MessageBody {
        let size: Int
        switch (params.text, params.custom) {
        case (let text?, nil):
            guard !text.isEmpty else { throw GuildError(.imInvalidParameters, "text must not be empty", field: "text") }
            size = text.utf8.count
        case (nil, let custom?):
            size = custom.jsonBytes.count
        default:
            throw GuildError(.imInvalidParameters, "a message has exactly one of text and custom", field: "text")
        }
        let total = size + (params.cloudCustomData?.utf8.count ?? 0)
        guard total <= Self.maximumMessageBytes else {
            throw GuildError(
                .messageTooLong,
                "the message is \(total) bytes; at most \(Self.maximumMessageBytes)",
                field: params.text == nil ? "custom" : "text"
            )
        }
        if let mentions = params.atUserList {
            guard mentions.count <= Self.maximumMentions else {
                throw GuildError(.imInvalidParameters, "atUserList has at most \(Self.maximumMentions) entries", field: "atUserList")
            }
            guard !mentions.contains(where: \.isEmpty) else {
                throw GuildError(.imInvalidParameters, "atUserList entries are user ids", field: "atUserList")
            }
        }
        return MessageBody(
            text: params.text,
            custom: params.custom,
            cloudCustomData: params.cloudCustomData,
            atUserList: params.atUserList.map { GroupService.unique($0) }.flatMap { $0.isEmpty ? nil : $0 }
        )
    }

    /// A `newMessage` event's `changes`: the message without its sender and time (the event's actor and time).
    static func eventChanges(seq: Int64, msgID: String, priority: MessagePriority, body: MessageBody?) -> [String: JSONValue] {
        var changes: [String: JSONValue] = ["messageSeq": .int(seq), "msgID": .string(msgID), "priority": .string(priority.rawValue)]
        guard let body else {
            changes["revoked"] = .bool(true)
            return changes
        }
        if let text = body.text { changes["text"] = .string(text) }
        if let custom = body.custom { changes["custom"] = custom }
        if let data = body.cloudCustomData { changes["cloudCustomData"] = .string(data) }
        if let mentions = body.atUserList { changes["atUserList"] = .array(mentions.map { .string($0) }) }
        return changes
    }

    /// `<seq>-<ms>-<64 random bits in hex>`: unique without a lookup.
    static func newMessageID(seq: Int64, now: Int64) -> String {
        let random = String(UInt64.random(in: 0...UInt64.max), radix: 16)
        return "\(seq)-\(now)-\(String(repeating: "0", count: 16 - random.count))\(random)"
    }
}
