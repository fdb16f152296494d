import Foundation
import GRDB
import GuildCore
import GuildProtocol

extension SQLiteTransaction: EventRecords {
    @discardableResult
    func append(_ event: GroupEvent) throws -> Int64 {
        let body = try RPCCoding.encode(EventBody(event))
        // The schema knows 'members' and 'named'; an admins-only event is stored as 'named' with no named
        // users, which replay shows to nobody but subscribers watching everything.
        try self.db.cachedStatement(sql: "INSERT INTO event (kind, groupID, audience, body, time) VALUES (?, ?, ?, ?, ?)").execute(
            arguments: StoredText.arguments([
                event.kind.rawValue, event.groupID, event.audience == .members ? "members" : "named", Data(body), event.time,
            ])
        )
        let seq = self.db.lastInsertedRowID
        for user in Set(event.namedRecipients) {
            try self.db.cachedStatement(sql: "INSERT OR IGNORE INTO event_subject (userID, seq) VALUES (?, ?)").execute(
                arguments: StoredText.arguments([user, seq])
            )
        }
        for user in Set(event.excluded) {
            try self.db.cachedStatement(sql: "INSERT INTO event_excluded (seq, userID) VALUES (?, ?)").execute(
                arguments: StoredText.arguments([seq, user])
            )
        }
        for user in event.joined {
            try self.db.cachedStatement(sql: "INSERT INTO membership_history (groupID, userID, fromSeq, toSeq) VALUES (?, ?, ?, NULL)").execute(
                arguments: StoredText.arguments([event.groupID, user, seq])
            )
        }
        for user in event.left {
            try self.db.cachedStatement(sql: "UPDATE membership_history SET toSeq = ? WHERE groupID = ? AND userID = ? AND toSeq IS NULL").execute(
                arguments: StoredText.arguments([seq, event.groupID, user])
            )
        }
        self.log.events.append(CommittedEvent(seq: seq, event: event, json: EventBody.json(seq: seq, body: body)))
        return seq
    }
}
