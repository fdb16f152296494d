import Foundation
import GRDB
import GuildCore
import GuildJSON

/// The objects area's records (`ObjectRecords`) in one SQLite transaction: what `tx.objects` hands out.
struct SQLiteObjectRecords: SQLiteAreaRecords {
    let tx: SQLiteTransaction
}

extension SQLiteTransaction {
    /// The objects area's records in this transaction.
    var objects: any ObjectRecords { SQLiteObjectRecords(tx: self) }
}

extension SQLiteObjectRecords: ObjectRecords {
    func bucket(scope: ObjectScope, name: String) throws -> Bucket? {
        try Row.fetchOne(
            self.db.cachedStatement(sql: "SELECT id, creator, created FROM bucket WHERE scope = ? AND name = ?"),
            arguments: StoredText.arguments([scope.description, name])
        ).map { Bucket(rowID: $0[0], scope: scope, name: name, creator: $0.text(at: 1), created: $0[2]) }
    }

    func insertBucket(scope: ObjectScope, name: String, creator: String?, now: Int64) throws -> Bucket {
        try self.db.cachedStatement(sql: "INSERT INTO bucket (scope, name, creator, created) VALUES (?, ?, ?, ?)").execute(
            arguments: StoredText.arguments([scope.description, name, creator, now])
        )
        return Bucket(rowID: self.db.lastInsertedRowID, scope: scope, name: name, creator: creator, created: now)
    }

    func buckets(scope: ObjectScope) throws -> [(bucket: Bucket, count: Int)] {
        try Row.fetchAll(
            self.db.cachedStatement(
                sql: """
                    SELECT b.id, b.name, b.creator, b.created, (SELECT count(*) FROM object o WHERE o.bucketID = b.id)
                    FROM bucket b WHERE b.scope = ? ORDER BY b.name
                    """
            ),
            arguments: StoredText.arguments([scope.description])
        ).map { row in
            (Bucket(rowID: row[0], scope: scope, name: row[1], creator: row.text(at: 2), created: row[3]), row[4])
        }
    }

    func deleteBucket(_ bucket: Bucket) throws {
        try self.db.cachedStatement(sql: "DELETE FROM acl_entry WHERE scope = ? AND bucketID = ?").execute(
            arguments: StoredText.arguments([bucket.scope.description, bucket.rowID])
        )
        try self.db.cachedStatement(sql: "DELETE FROM object_field WHERE bucketID = ?").execute(arguments: [bucket.rowID])
        try self.db.cachedStatement(sql: "DELETE FROM object WHERE bucketID = ?").execute(arguments: [bucket.rowID])
        try self.db.cachedStatement(sql: "DELETE FROM bucket WHERE id = ?").execute(arguments: [bucket.rowID])
    }

    private static let objectColumns = "o.id, o.objectID, o.fields, o.version, o.created, o.modified, o.owner, o.aclWritten"

    /// Reads a row of ``objectColumns`` by position.
    private static func object(from row: Row) throws -> StoredObject {
        let members = try StoredJSON.object(row[2])
        return StoredObject(
            rowID: row[0],
            objectID: row[1],
            fields: members,
            version: row[3],
            created: row[4],
            modified: row[5],
            owner: row.text(at: 6),
            aclWritten: row[7]
        )
    }

    func object(in bucket: Bucket, id: String) throws -> StoredObject? {
        try Row.fetchOne(
            self.db.cachedStatement(sql: "SELECT \(Self.objectColumns) FROM object o WHERE o.bucketID = ? AND o.objectID = ?"),
            arguments: StoredText.arguments([bucket.rowID, id])
        ).map(Self.object(from:))
    }

    func insertObject(_ object: StoredObject, in bucket: Bucket) throws -> StoredObject {
        try self.db.cachedStatement(
            sql: "INSERT INTO object (bucketID, objectID, fields, version, created, modified, owner) VALUES (?, ?, ?, ?, ?, ?, ?)"
        ).execute(
            arguments: StoredText.arguments([
                bucket.rowID, object.objectID, StoredJSON.data(object.fields), object.version, object.created, object.modified, object.owner,
            ])
        )
        var stored = object
        stored.rowID = self.db.lastInsertedRowID
        try self.index(stored, in: bucket)
        return stored
    }

    func updateObject(_ object: StoredObject, in bucket: Bucket) throws {
        try self.db.cachedStatement(sql: "UPDATE object SET fields = ?, version = ?, modified = ? WHERE id = ?").execute(
            arguments: [StoredJSON.data(object.fields), object.version, object.modified, object.rowID]
        )
        try self.db.cachedStatement(sql: "DELETE FROM object_field WHERE objectRow = ?").execute(arguments: [object.rowID])
        try self.index(object, in: bucket)
    }

    func markObjectACLWritten(_ object: StoredObject, in bucket: Bucket) throws {
        try self.db.cachedStatement(sql: "UPDATE object SET aclWritten = 1 WHERE id = ?").execute(arguments: [object.rowID])
    }

    func deleteObject(_ object: StoredObject, in bucket: Bucket) throws {
        try self.db.cachedStatement(sql: "DELETE FROM acl_entry WHERE scope = ? AND bucketID = ? AND objectID = ?").execute(
            arguments: StoredText.arguments([bucket.scope.description, bucket.rowID, object.objectID])
        )
        try self.db.cachedStatement(sql: "DELETE FROM object_field WHERE objectRow = ?").execute(arguments: [object.rowID])
        try self.db.cachedStatement(sql: "DELETE FROM object WHERE id = ?").execute(arguments: [object.rowID])
    }

    /// Writes the object's scalars to the field index.
    private func index(_ object: StoredObject, in bucket: Bucket) throws {
        let statement = try self.db.cachedStatement(
            sql: "INSERT INTO object_field (bucketID, path, kind, value, objectRow) VALUES (?, ?, ?, ?, ?)"
        )
        for (path, value) in object.indexedFields {
            try statement.execute(arguments: [bucket.rowID, StoredText.value(path), value.kind, Self.databaseValue(value), object.rowID])
        }
    }

    /// How the index stores a scalar: Booleans as 0 and 1, numbers as INTEGER or REAL, strings as text.
    private static func databaseValue(_ value: FieldValue) -> DatabaseValue {
        switch value {
        case .bool(let flag): (flag ? 1 : 0).databaseValue
        case .int(let number): number.databaseValue
        case .double(let number): number.databaseValue
        case .string(let text): StoredText.value(text)
        }
    }

    func objects(
        in bucket: Bucket,
        walk: ObjectWalk,
        after cursor: ObjectCursor?,
        limit: Int
    ) throws
        -> [(object: StoredObject, cursor: ObjectCursor)]
    {
        switch walk {
        case .all:
            let row = if case .after(let row)? = cursor { row } else { Int64(0) }
            return try Row.fetchAll(
                self.db.cachedStatement(
                    sql: "SELECT \(Self.objectColumns) FROM object o WHERE o.bucketID = ? AND o.id > ? ORDER BY o.id LIMIT ?"
                ),
                arguments: [bucket.rowID, row, limit]
            ).map { row in
                let object = try Self.object(from: row)
                return (object, .after(object.rowID))
            }
        case .holding(let path, let values):
            let row = if case .after(let row)? = cursor { row } else { Int64(0) }
            let marks = Array(repeating: "?", count: values.count).joined(separator: ", ")
            var arguments: [DatabaseValue] = [bucket.rowID.databaseValue, StoredText.value(path.text), values[0].kind.databaseValue]
            arguments += values.map(Self.databaseValue)
            arguments += [row.databaseValue, limit.databaseValue]
            return try Row.fetchAll(
                self.db.cachedStatement(
                    sql: """
                        SELECT \(Self.objectColumns) FROM object o WHERE o.id IN (
                            SELECT f.objectRow FROM object_field f
                            WHERE f.bucketID = ? AND f.path = ? AND f.kind = ? AND f.value IN (\(marks)) AND f.objectRow > ?
                            ORDER BY f.objectRow LIMIT ?)
                        ORDER BY o.id
                        """
                ),
                arguments: StatementArguments(arguments)
            ).map { row in
                let object = try Self.object(from: row)
                return (object, .after(object.rowID))
            }
        case .ordered(let path, let descending):
            var page: [(object: StoredObject, cursor: ObjectCursor)] = []
            if cursor == nil || { if case .afterValue = cursor! { true } else { false } }() {
                let (comparison, order) = descending ? ("<", "DESC") : (">", "ASC")
                var condition = ""
                var arguments: [DatabaseValue] = [bucket.rowID.databaseValue, StoredText.value(path.text)]
                if case .afterValue(let value, let row)? = cursor {
                    condition = "AND (f.kind, f.value, f.objectRow) \(comparison) (?, ?, ?)"
                    arguments += [value.kind.databaseValue, Self.databaseValue(value), row.databaseValue]
                }
                arguments.append(limit.databaseValue)
                let rows = try Row.fetchAll(
                    self.db.cachedStatement(
                        sql: """
                            SELECT \(Self.objectColumns), f.kind, f.value FROM object_field f JOIN object o ON o.id = f.objectRow
                            WHERE f.bucketID = ? AND f.path = ? \(condition)
                            ORDER BY f.kind \(order), f.value \(order), f.objectRow \(order) LIMIT ?
                            """
                    ),
                    arguments: StatementArguments(arguments)
                )
                for row in rows {
                    let object = try Self.object(from: row)
                    let value = Self.fieldValue(kind: row[8], row[9] as DatabaseValue)
                    page.append((object, .afterValue(value, object.rowID)))
                }
                if page.count == limit { return page }
            }
            let after = if case .after(let row)? = cursor { row } else { Int64(0) }
            let rows = try Row.fetchAll(
                self.db.cachedStatement(
                    sql: """
                        SELECT \(Self.objectColumns) FROM object o
                        WHERE o.bucketID = ? AND o.id > ?
                          AND NOT EXISTS (SELECT 1 FROM object_field f WHERE f.objectRow = o.id AND f.path = ?)
                        ORDER BY o.id LIMIT ?
                        """
                ),
                arguments: StatementArguments([
                    bucket.rowID.databaseValue, after.databaseValue, StoredText.value(path.text), (limit - page.count).databaseValue,
                ])
            )
            for row in rows {
                let object = try Self.object(from: row)
                page.append((object, .after(object.rowID)))
            }
            return page
        }
    }

    /// A scalar read back from the field index.
    private static func fieldValue(kind: Int, _ value: DatabaseValue) -> FieldValue {
        switch (kind, value.storage) {
        case (1, .int64(let number)): .bool(number != 0)
        case (_, .int64(let number)): .int(number)
        case (_, .double(let number)): .double(number)
        case (_, .string(let text)): .string(text)
        case (_, .blob(let data)): .string(String(decoding: data, as: UTF8.self))
        case (_, .null): .string("")
        }
    }

    // MARK: - ACL entries

    func aclEntries(scope: ObjectScope, bucket: Int64, objectID: String, action: ACLAction?) throws -> [ACLEntry]? {
        let key = scope.description
        if bucket == 0 {
            let written = try Bool.fetchOne(
                self.db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM acl_scope WHERE scope = ?)"),
                arguments: StoredText.arguments([key])
            )
            guard written == true else { return nil }
        }
        let rows: [Row]
        if let action {
            rows = try Row.fetchAll(
                self.db.cachedStatement(
                    sql: "SELECT action, subject, fixed FROM acl_entry WHERE scope = ? AND bucketID = ? AND objectID = ? AND action = ?"
                ),
                arguments: StoredText.arguments([key, bucket, objectID, action.rawValue])
            )
        } else {
            rows = try Row.fetchAll(
                self.db.cachedStatement(sql: "SELECT action, subject, fixed FROM acl_entry WHERE scope = ? AND bucketID = ? AND objectID = ?"),
                arguments: StoredText.arguments([key, bucket, objectID])
            )
        }
        return rows.compactMap { row in
            guard let action = ACLAction(rawValue: row[0]), let subject = try? ACLSubject(wire: row.text(at: 1) ?? "") else { return nil }
            return ACLEntry(action, subject, fixed: row[2])
        }
    }

    func insertACLEntry(_ entry: ACLEntry, scope: ObjectScope, bucket: Int64, objectID: String) throws -> Bool {
        try self.db.cachedStatement(
            sql: "INSERT OR IGNORE INTO acl_entry (scope, bucketID, objectID, action, subject, fixed) VALUES (?, ?, ?, ?, ?, ?)"
        ).execute(
            arguments: StoredText.arguments([scope.description, bucket, objectID, entry.action.rawValue, entry.subject.description, entry.fixed])
        )
        return self.db.changesCount > 0
    }

    func deleteACLEntry(_ entry: ACLEntry, scope: ObjectScope, bucket: Int64, objectID: String) throws -> Bool {
        try self.db.cachedStatement(
            sql: "DELETE FROM acl_entry WHERE scope = ? AND bucketID = ? AND objectID = ? AND action = ? AND subject = ?"
        ).execute(arguments: StoredText.arguments([scope.description, bucket, objectID, entry.action.rawValue, entry.subject.description]))
        return self.db.changesCount > 0
    }

    func markScopeACLWritten(_ scope: ObjectScope) throws {
        try self.db.cachedStatement(sql: "INSERT OR IGNORE INTO acl_scope (scope) VALUES (?)").execute(
            arguments: StoredText.arguments([scope.description])
        )
    }

    func deleteScope(_ scope: ObjectScope) throws {
        for (bucket, _) in try self.buckets(scope: scope) { try self.deleteBucket(bucket) }
        try self.db.cachedStatement(sql: "DELETE FROM acl_entry WHERE scope = ?").execute(arguments: StoredText.arguments([scope.description]))
        try self.db.cachedStatement(sql: "DELETE FROM acl_scope WHERE scope = ?").execute(arguments: StoredText.arguments([scope.description]))
    }

    func deleteACLEntries(naming subject: ACLSubject) throws {
        try self.db.cachedStatement(sql: "DELETE FROM acl_entry WHERE subject = ?").execute(arguments: StoredText.arguments([subject.description]))
    }

    func objectInvariantViolations() throws -> [String] {
        var violations: [String] = []
        let checks: [(String, String)] = [
            (
                "ACL entries of missing buckets",
                "SELECT count(*) FROM acl_entry a WHERE a.bucketID != 0 AND NOT EXISTS (SELECT 1 FROM bucket b WHERE b.id = a.bucketID)"
            ),
            (
                "ACL entries of missing objects",
                """
                SELECT count(*) FROM acl_entry a WHERE a.objectID != ''
                  AND NOT EXISTS (SELECT 1 FROM object o WHERE o.bucketID = a.bucketID AND o.objectID = a.objectID)
                """
            ),
            (
                "buckets of missing groups",
                #"SELECT count(*) FROM bucket WHERE scope LIKE 'group:%' AND NOT EXISTS (SELECT 1 FROM "group" g WHERE g.id = substr(scope, 7))"#
            ),
            (
                "buckets of missing users",
                #"SELECT count(*) FROM bucket WHERE scope LIKE 'user:%' AND NOT EXISTS (SELECT 1 FROM "user" u WHERE u.id = substr(scope, 6))"#
            ),
            (
                "ACL entries naming missing users",
                #"SELECT count(*) FROM acl_entry a WHERE a.subject LIKE 'UserID:%' AND a.subject NOT IN ('UserID:ANY_AUTHENTICATED_USER', 'UserID:ANONYMOUS_USER') AND NOT EXISTS (SELECT 1 FROM "user" u WHERE u.id = substr(a.subject, 8))"#
            ),
            (
                "ACL entries naming missing groups",
                #"SELECT count(*) FROM acl_entry a WHERE a.subject LIKE 'GroupID:%' AND NOT EXISTS (SELECT 1 FROM "group" g WHERE g.id = substr(a.subject, 9))"#
            ),
            (
                "objects without their field index",
                "SELECT count(*) FROM object o WHERE NOT EXISTS (SELECT 1 FROM object_field f WHERE f.objectRow = o.id AND f.path = '_created')"
            ),
        ]
        for (what, sql) in checks {
            let count = try Int.fetchOne(self.db, sql: sql) ?? 0
            if count > 0 { violations.append("\(count) \(what)") }
        }
        return violations
    }
}
