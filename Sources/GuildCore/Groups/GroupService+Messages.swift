import GuildJSON
import GuildProtocol

extension GroupService {
    /// Sends a text message to a group's members (`newMessage`); returns its per-group sequence number
    /// (1, 2, ...). A muted member, or an ordinary member while the whole group is muted, gets 10017. Members
    /// whose receive option is `NOT_RECEIVE` do not receive it.
    public func sendMessage(caller: Caller, groupID: String, text: String) async throws -> Int64 {
        let userID = try caller.requireUserID()
        try GroupRules.validateBytes(text, max: GroupRules.Limit.message, field: "text", allowEmpty: false)
        return try await self.store.write { tx in
            let context = try self.load(tx, caller, groupID)
            guard let membership = context.membership else {
                throw GuildError(.notAMember, "the caller is not a member of \(groupID)")
            }
            let until = try tx.muteUntil(groupID: groupID, userID: userID)
            if until > context.now {
                throw GuildError(.muted, "the caller is muted in \(groupID) until \(until)")
            }
            if context.group.allMuted && membership.role == .member {
                throw GuildError(.muted, "every ordinary member of \(groupID) is muted")
            }
            let seq = try tx.nextMessageSeq(groupID: groupID)
            var event = context.event(.newMessage, changes: ["messageSeq": .int(seq), "text": .string(text)])
            // Members who chose NOT_RECEIVE get no copy, live or on replay.
            event.excluded = try tx.membersNotReceiving(groupID: groupID)
            try tx.append(event)
            return seq
        }
    }
}
