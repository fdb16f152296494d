import Foundation
import GRDB
import GuildCore
import GuildProtocol

/// The store's one ``Transaction``: a GRDB savepoint of a group-commit transaction (or a read-only snapshot),
/// with the operation's log of appended events and changed records. Each area's records are a small type in
/// that area's folder over this transaction (`SQLiteUserRecords` in `Users/`, ...), handed out by `users`,
/// `groups`, ...: each accessor is an extension beside its records type, so an area adds it in its own folder.
final class SQLiteTransaction: Transaction {
    let db: Database
    let log: EventLog

    init(db: Database, log: EventLog) {
        self.db = db
        self.log = log
    }

    func changed(_ record: RecordKey) {
        self.log.changed.insert(record)
    }

    /// Marks a group changed, for the caches of listed groups.
    func changedGroup(_ id: String) {
        self.log.changed.insert(RecordKey(area: "group", id: id))
    }

}

/// An area's records over one ``SQLiteTransaction``: its database and log, as the transaction's own.
protocol SQLiteAreaRecords {
    var tx: SQLiteTransaction { get }
}

extension SQLiteAreaRecords {
    var db: Database { self.tx.db }
    var log: EventLog { self.tx.log }

    func changed(_ record: RecordKey) { self.tx.changed(record) }

    /// Marks a group changed, for the caches of listed groups.
    func changedGroup(_ id: String) { self.tx.changedGroup(id) }

    @discardableResult
    func append(_ event: some LoggableEvent) throws -> Int64 { try self.tx.append(event) }
}
