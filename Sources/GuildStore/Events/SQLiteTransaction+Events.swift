import Foundation
import GRDB
import GuildCore

extension SQLiteTransaction: EventRecords {
    @discardableResult
    func append(_ event: some LoggableEvent) throws -> Int64 {
        // Every area whose events the SQLite log holds records their audience (``SQLiteLoggedEvent``).
        guard let logged = event as? any SQLiteLoggedEvent else {
            preconditionFailure("\(type(of: event)) has no SQLite side: conform it to SQLiteLoggedEvent in its area")
        }
        return try self.db.appendEvent(logged, to: self.log)
    }

    func rewrite(_ seq: Int64, as event: some LoggableEvent) throws {
        let body = try event.encodeStoredBody() ?? event.encodeBody()
        try self.db.cachedStatement(sql: "UPDATE event SET body = ? WHERE seq = ?").execute(arguments: [Data(body), seq])
    }
}
