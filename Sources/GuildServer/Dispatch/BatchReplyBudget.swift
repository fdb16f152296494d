import GuildCore
import GuildJSON
import GuildProtocol

/// Bounds the bytes of one batch's reply (`--max-batch-reply-bytes`): once the entries answered so far
/// take the budget, every later entry's reply is replaced by -32005 `RESPONSE_TOO_LARGE`, so a small batch
/// can never make the daemon hold a huge reply. Every request entry is still answered.
struct BatchReplyBudget {
    private let limit: Int
    private var used = 0

    init(limit: Int) {
        self.limit = limit
    }

    /// The reply to put in the batch for an entry with `id` (nil for a notification): `reply` while the
    /// budget lasts, else the error.
    mutating func admit(_ reply: [UInt8]?, id: RequestID?) -> [UInt8]? {
        guard let reply else { return nil }
        if self.used + reply.count <= self.limit {
            self.used += reply.count
            return reply
        }
        let error = RPCError(
            code: .responseTooLarge,
            message: "the batch's replies exceed \(self.limit) bytes; this entry's result was dropped, send it again alone",
            reason: ErrorReason.responseTooLarge,
            extra: ["limit": .int(Int64(self.limit))]
        )
        let refusal = Dispatcher.reply(id, .failure(error)) ?? []
        self.used += refusal.count
        return refusal
    }
}

extension RPCFrame.Entry {
    /// The entry's id (nil for a notification).
    var id: RequestID? {
        switch self {
        case .request(let request): request.id
        case .invalid(let id, _): id
        }
    }
}

extension Caller {
    /// The key admission control counts a caller's expensive calls under: the session's user, else the
    /// peer's uid.
    var principal: String {
        if let session = self.session { return "user:" + session.user.id }
        if let thingID = self.thingID { return "thing:" + thingID }
        return "uid:\(self.peer.uid)"
    }
}
