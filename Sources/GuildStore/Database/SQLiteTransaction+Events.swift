import GRDB
import GuildCore

extension SQLiteTransaction: EventRecords {
    @discardableResult
    func append(_ event: GroupEvent) throws -> Int64 {
        try self.db.appendEvent(event, to: self.log)
    }
}
