import GRDB
import GuildCore

/// The storage usage area's records (`StorageRecords`) in one SQLite transaction: what `tx.storage` hands out.
struct SQLiteStorageRecords: StorageRecords, SQLiteAreaRecords {
    let tx: SQLiteTransaction
}

extension SQLiteTransaction {
    /// The storage usage records in this transaction.
    var storage: any StorageRecords { SQLiteStorageRecords(tx: self) }
}

/// The storage usage records (`StorageRecords`): reads of `storage_usage`, which the area's triggers keep.
extension SQLiteStorageRecords {
    func storageUsage(owner: StorageOwner) throws -> Int64 {
        try Int64.fetchOne(
            self.db.cachedStatement(sql: "SELECT COALESCE(sum(bytes), 0) FROM storage_usage WHERE owner = ?"),
            arguments: StoredText.arguments([owner.description])
        ) ?? 0
    }

    func storageUsageByArea() throws -> [StorageArea: Int64] {
        var usage: [StorageArea: Int64] = [:]
        for row in try Row.fetchAll(self.db.cachedStatement(sql: "SELECT area, sum(bytes) FROM storage_usage GROUP BY area")) {
            guard let area = StorageArea(rawValue: row[0]) else { continue }
            let bytes: Int64 = row[1]
            if bytes != 0 { usage[area] = bytes }
        }
        return usage
    }

    func largestStorageOwners(limit: Int) throws -> [(owner: StorageOwner, bytes: Int64)] {
        try Row.fetchAll(
            self.db.cachedStatement(
                sql: "SELECT owner, sum(bytes) AS total FROM storage_usage GROUP BY owner HAVING total > 0 ORDER BY total DESC, owner LIMIT ?"
            ),
            arguments: [limit]
        ).map { (StorageOwner($0.text(at: 0) ?? ""), $0[1]) }
    }

    func storageInvariantViolations() throws -> [String] {
        // Both sides without their zero rows: an owner whose data is all gone keeps a row of 0.
        try Row.fetchAll(
            self.db,
            sql: """
                SELECT owner, area, kept, counted FROM (
                    SELECT owner, area, sum(kept) AS kept, sum(counted) AS counted FROM (
                        SELECT owner, area, bytes AS kept, 0 AS counted FROM storage_usage
                        UNION ALL SELECT owner, area, 0, bytes FROM storage_recount
                    ) GROUP BY owner, area
                ) WHERE kept <> counted
                """
        ).map { row in
            let owner = row.text(at: 0) ?? ""
            let area: String = row[1]
            let kept: Int64 = row[2]
            let counted: Int64 = row[3]
            return "storage_usage of \(owner) in \(area) is \(kept) bytes, but \(counted) are stored"
        }
    }
}
