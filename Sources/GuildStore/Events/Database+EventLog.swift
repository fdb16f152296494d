import Foundation
import GRDB
import GuildCore

extension Database {
    /// Appends an area's event to the log: one row with the next global sequence number, the area's audience
    /// records, and the committed event the fan-out receives after the commit. Returns the sequence number.
    @discardableResult
    func appendEvent<Event: SQLiteLoggedEvent>(_ event: Event, to log: EventLog) throws -> Int64 {
        let body = try event.encodeBody()
        let stored = try event.encodeStoredBody() ?? body
        try self.cachedStatement(sql: "INSERT INTO event (topic, kind, audience, body, time) VALUES (?, ?, ?, ?, ?)").execute(
            arguments: StoredText.arguments([event.topic.rawValue, event.kindName, event.audienceTag, Data(stored), event.time])
        )
        let seq = self.lastInsertedRowID
        try event.recordAudience(seq: seq, in: self)
        log.events.append(CommittedEvent(seq: seq, event: event, json: CommittedEvent.json(seq: seq, body: body)))
        return seq
    }
}
