import GRDB
import GuildCore

/// Presence per host (`thing_presence`, `presence_host`; see `ThingService.setOnline`). SQLite has one writer,
/// so nothing here needs a lock.
extension SQLiteThingRecords {
    func recordThingPresence(_ present: Bool, thingID: String, hostID: String, now: Int64) throws -> Bool {
        if present {
            try self.db.cachedStatement(sql: "INSERT OR IGNORE INTO thing_presence (thingID, hostID, since) VALUES (?, ?, ?)")
                .execute(arguments: StoredText.arguments([thingID, hostID, now]))
        } else {
            try self.db.cachedStatement(sql: "DELETE FROM thing_presence WHERE thingID = ? AND hostID = ?")
                .execute(arguments: StoredText.arguments([thingID, hostID]))
        }
        return try Bool.fetchOne(
            self.db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM thing_presence WHERE thingID = ?)"),
            arguments: StoredText.arguments([thingID])
        ) == true
    }

    func thingsPresent(hostID: String) throws -> [String] {
        try Row.fetchAll(
            self.db.cachedStatement(sql: "SELECT thingID FROM thing_presence WHERE hostID = ? ORDER BY thingID"),
            arguments: StoredText.arguments([hostID])
        ).compactMap { $0.text(at: 0) }
    }

    func hostsToReap(before now: Int64, named: String?, unleased: Bool, except hostID: String) throws -> [String] {
        var sql = "SELECT hostID FROM presence_host WHERE (expires < ? OR name = ?) AND hostID <> ?"
        var arguments: [(any DatabaseValueConvertible)?] = [now, named, hostID]
        if unleased {
            sql += """
                 UNION SELECT DISTINCT p.hostID FROM thing_presence p
                WHERE p.hostID <> ? AND NOT EXISTS (SELECT 1 FROM presence_host h WHERE h.hostID = p.hostID)
                """
            arguments.append(hostID)
        }
        return try Row.fetchAll(self.db.cachedStatement(sql: sql + " ORDER BY 1"), arguments: StoredText.arguments(arguments))
            .compactMap { $0.text(at: 0) }
    }

    func renewHostLease(hostID: String, expires: Int64) throws -> Bool {
        try self.db.cachedStatement(sql: "UPDATE presence_host SET expires = ? WHERE hostID = ?")
            .execute(arguments: StoredText.arguments([expires, hostID]))
        return self.db.changesCount > 0
    }

    func insertHostLease(hostID: String, name: String, expires: Int64) throws {
        try self.db.cachedStatement(sql: "INSERT OR REPLACE INTO presence_host (hostID, name, expires) VALUES (?, ?, ?)")
            .execute(arguments: StoredText.arguments([hostID, name, expires]))
    }

    func deleteHostLease(hostID: String) throws {
        try self.db.cachedStatement(sql: "DELETE FROM presence_host WHERE hostID = ?").execute(arguments: StoredText.arguments([hostID]))
    }
}
