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
}
