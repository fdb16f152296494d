import GuildCore
import PostgresNIO

/// The storage usage area's records (`StorageRecords`) in one PostgreSQL transaction: what `tx.storage` hands out.
struct PostgresStorageRecords: PostgresAreaRecords {
    let tx: PostgresTransaction
}

extension PostgresTransaction {
    /// The storage usage records in this transaction.
    public var storage: any StorageRecords { PostgresStorageRecords(tx: self) }
}

/// Storage usage on PostgreSQL (schema version 30), answering as `GuildStore`'s SQLite version does: reads of
/// `storage_usage`, which the schema's row triggers keep.
extension PostgresStorageRecords: StorageRecords {
    public func storageUsage(owner: StorageOwner) throws -> Int64 {
        guard Self.isStorableKey(owner.description) else { return 0 }
        return try self.connection.query(
            "SELECT COALESCE(sum(bytes), 0)::bigint FROM storage_usage WHERE owner = \(owner.description)"
        ).first?.decode(Int64.self) ?? 0
    }

    public func storageUsageByArea() throws -> [StorageArea: Int64] {
        var usage: [StorageArea: Int64] = [:]
        for row in try self.connection.query("SELECT area, sum(bytes)::bigint FROM storage_usage GROUP BY area") {
            let (name, bytes) = try row.decode((String, Int64).self)
            if let area = StorageArea(rawValue: name), bytes != 0 { usage[area] = bytes }
        }
        return usage
    }

    public func largestStorageOwners(limit: Int) throws -> [(owner: StorageOwner, bytes: Int64)] {
        try self.connection.query(
            """
            SELECT owner, sum(bytes)::bigint AS total FROM storage_usage GROUP BY owner HAVING sum(bytes) > 0
            ORDER BY total DESC, owner COLLATE "C" LIMIT \(limit)
            """
        ).map { row in
            let (owner, bytes) = try row.decode((String, Int64).self)
            return (StorageOwner(owner), bytes)
        }
    }

    public func storageInvariantViolations() throws -> [String] {
        try self.connection.query(
            """
            SELECT owner, area, kept, counted FROM (
                SELECT owner, area, sum(kept)::bigint AS kept, sum(counted)::bigint AS counted FROM (
                    SELECT owner, area, bytes AS kept, 0::bigint AS counted FROM storage_usage
                    UNION ALL SELECT owner, area, 0::bigint, bytes FROM storage_recount
                ) usage GROUP BY owner, area
            ) totals WHERE kept <> counted
            """
        ).map { row in
            let (owner, area, kept, counted) = try row.decode((String, String, Int64, Int64).self)
            return "storage_usage of \(owner) in \(area) is \(kept) bytes, but \(counted) are stored"
        }
    }
}
