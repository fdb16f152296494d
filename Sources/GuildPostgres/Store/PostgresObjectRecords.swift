import GuildCore
import GuildJSON
import NIOCore
import PostgresNIO

/// The objects area's records (`ObjectRecords`) in one PostgreSQL transaction: what `tx.objects` hands out.
struct PostgresObjectRecords: PostgresAreaRecords {
    let tx: PostgresTransaction
}

extension PostgresTransaction {
    /// The objects area's records in this transaction.
    public var objects: any ObjectRecords { PostgresObjectRecords(tx: self) }
}

/// The objects area on PostgreSQL (schema version 10), answering as `GuildStore`'s SQLite version does: the same
/// buckets, objects and ACL entries, walks in the same order with the same cursors, the field index ordering
/// values as SQLite orders them (see ``PostgresMigration/objects``).
///
/// Several hosts may write at once, each through its own ``PostgresWriter``, where SQLite has a single writer. So
/// a write transaction locks the object it reads (``rowLock``): of two hosts changing one object, the second
/// waits for the first to commit and then reads the object as the first left it, as it would have under SQLite's
/// single writer (an `ifVersion` check then sees the new version).
///
/// PostgreSQL text cannot hold U+0000: an object's JSON and the index's paths and strings are stored as UTF-8
/// bytes, and a key holding a NUL (a scope, an object id, a subject) names no row.
extension PostgresObjectRecords: ObjectRecords {
    /// A bucket by scope and name.
    public func bucket(scope: ObjectScope, name: String) throws -> Bucket? {
        let key = scope.description
        guard Self.isStorableKey(key), Self.isStorableKey(name) else { return nil }
        let rows = try self.connection.query(
            "SELECT id, creator, created FROM bucket WHERE scope = \(key) AND name = \(name)"
        )
        guard let row = rows.first else { return nil }
        let (id, creator, created) = try row.decode((Int64, String?, Int64).self)
        return Bucket(rowID: id, scope: scope, name: name, creator: creator, created: created)
    }

    /// Creates a bucket; a taken scope and name fails, as in SQLite.
    public func insertBucket(scope: ObjectScope, name: String, creator: String?, now: Int64) throws -> Bucket {
        let rows = try self.connection.query(
            """
            INSERT INTO bucket (scope, name, creator, created)
            VALUES (\(scope.description), \(name), \(creator), \(now))
            RETURNING id
            """
        )
        guard let id = try rows.first?.decode(Int64.self) else {
            throw PostgresStoreError.unexpectedReply("no bucket id")
        }
        return Bucket(rowID: id, scope: scope, name: name, creator: creator, created: now)
    }

    /// A scope's buckets with their object counts, by name (compared as bytes, as SQLite does).
    public func buckets(scope: ObjectScope) throws -> [(bucket: Bucket, count: Int)] {
        let key = scope.description
        guard Self.isStorableKey(key) else { return [] }
        let rows = try self.connection.query(
            """
            SELECT b.id, b.name, b.creator, b.created, (SELECT count(*) FROM object o WHERE o.bucket_id = b.id)
            FROM bucket b WHERE b.scope = \(key) ORDER BY b.name COLLATE "C"
            """
        )
        return try rows.map { row in
            let (id, name, creator, created, count) = try row.decode((Int64, String, String?, Int64, Int64).self)
            return (Bucket(rowID: id, scope: scope, name: name, creator: creator, created: created), Int(count))
        }
    }

    /// Deletes a bucket with its objects, their field index and every ACL entry of the bucket and its objects.
    public func deleteBucket(_ bucket: Bucket) throws {
        let key = scope(bucket)
        if let key {
            try self.connection.execute("DELETE FROM acl_entry WHERE scope = \(key) AND bucket_id = \(bucket.rowID)")
        }
        try self.connection.execute("DELETE FROM object_field WHERE bucket_id = \(bucket.rowID)")
        try self.connection.execute("DELETE FROM object WHERE bucket_id = \(bucket.rowID)")
        try self.connection.execute("DELETE FROM bucket WHERE id = \(bucket.rowID)")
    }

    /// An object by id; in a write transaction, its row is locked until the transaction ends, so that a change
    /// based on what was read cannot be lost to another host's.
    public func object(in bucket: Bucket, id: String) throws -> StoredObject? {
        guard Self.isStorableKey(id) else { return nil }
        let rows = try self.connection.query(
            """
            SELECT \(unescaped: Self.objectColumns) FROM object o
            WHERE o.bucket_id = \(bucket.rowID) AND o.object_id = \(id) \(unescaped: self.rowLock)
            """
        )
        return try rows.first.map { try Self.object(from: $0.makeRandomAccess()) }
    }

    /// Stores a new object (its row id assigned in creation order) and indexes its fields.
    public func insertObject(_ object: StoredObject, in bucket: Bucket) throws -> StoredObject {
        let rows = try self.connection.query(
            """
            INSERT INTO object (bucket_id, object_id, fields, version, created, modified, owner)
            VALUES (
                \(bucket.rowID), \(object.objectID), \(Self.json(object.fields)), \(object.version), \(object.created),
                \(object.modified), \(object.owner)
            )
            RETURNING id
            """
        )
        guard let id = try rows.first?.decode(Int64.self) else {
            throw PostgresStoreError.unexpectedReply("no object row id")
        }
        var stored = object
        stored.rowID = id
        try self.index(stored, in: bucket)
        return stored
    }

    /// Replaces a stored object's fields, version and modification time, and re-indexes it.
    public func updateObject(_ object: StoredObject, in bucket: Bucket) throws {
        try self.connection.execute(
            """
            UPDATE object SET fields = \(Self.json(object.fields)), version = \(object.version),
                modified = \(object.modified)
            WHERE id = \(object.rowID)
            """
        )
        try self.connection.execute("DELETE FROM object_field WHERE object_row = \(object.rowID)")
        try self.index(object, in: bucket)
    }

    /// Records that an object's ACL is written from now on.
    public func markObjectACLWritten(_ object: StoredObject, in bucket: Bucket) throws {
        try self.connection.execute("UPDATE object SET acl_written = true WHERE id = \(object.rowID)")
    }

    /// Deletes an object with its field index and ACL entries.
    public func deleteObject(_ object: StoredObject, in bucket: Bucket) throws {
        if let key = scope(bucket), Self.isStorableKey(object.objectID) {
            try self.connection.execute(
                """
                DELETE FROM acl_entry
                WHERE scope = \(key) AND bucket_id = \(bucket.rowID) AND object_id = \(object.objectID)
                """
            )
        }
        try self.connection.execute("DELETE FROM object_field WHERE object_row = \(object.rowID)")
        try self.connection.execute("DELETE FROM object WHERE id = \(object.rowID)")
    }

    /// Up to `limit` objects of a walk after `cursor`, each with the cursor just past it, as SQLite walks them.
    public func objects(
        in bucket: Bucket,
        walk: ObjectWalk,
        after cursor: ObjectCursor?,
        limit: Int
    ) throws
        -> [(object: StoredObject, cursor: ObjectCursor)]
    {
        switch walk {
        case .all:
            let after = if case .after(let row)? = cursor { row } else { Int64(0) }
            let rows = try self.connection.query(
                """
                SELECT \(unescaped: Self.objectColumns) FROM object o
                WHERE o.bucket_id = \(bucket.rowID) AND o.id > \(after) ORDER BY o.id LIMIT \(Self.limit(limit))
                """
            )
            return try rows.map { row in
                let object = try Self.object(from: row.makeRandomAccess())
                return (object, .after(object.rowID))
            }
        case .holding(let path, let values):
            let after = if case .after(let row)? = cursor { row } else { Int64(0) }
            return try self.objects(in: bucket, holding: path, values, after: after, limit: limit)
        case .ordered(let path, let descending):
            return try self.objects(in: bucket, orderedBy: path, descending: descending, after: cursor, limit: limit)
        }
    }

    // MARK: - ACL entries

    /// The stored entries of `action` (every action when nil) on a target, by action and subject as SQLite's
    /// primary key orders them; nil for a scope whose ACL was never written.
    public func aclEntries(
        scope: ObjectScope,
        bucket: Int64,
        objectID: String,
        action: ACLAction?
    ) throws
        -> [ACLEntry]?
    {
        let key = scope.description
        guard Self.isStorableKey(key) else { return bucket == 0 ? nil : [] }
        if bucket == 0 {
            let written = try self.connection.query("SELECT 1 FROM acl_scope WHERE scope = \(key)")
            guard !written.isEmpty else { return nil }
        }
        guard Self.isStorableKey(objectID) else { return [] }
        let rows: [PostgresRow]
        if let action {
            rows = try self.connection.query(
                """
                SELECT action, subject, fixed FROM acl_entry
                WHERE scope = \(key) AND bucket_id = \(bucket) AND object_id = \(objectID)
                    AND action = \(action.rawValue)
                ORDER BY subject COLLATE "C"
                """
            )
        } else {
            rows = try self.connection.query(
                """
                SELECT action, subject, fixed FROM acl_entry
                WHERE scope = \(key) AND bucket_id = \(bucket) AND object_id = \(objectID)
                ORDER BY action COLLATE "C", subject COLLATE "C"
                """
            )
        }
        return try rows.compactMap { row in
            let (action, subject, fixed) = try row.decode((String, String, Bool).self)
            guard let action = ACLAction(rawValue: action), let subject = try? ACLSubject(wire: subject) else {
                return nil
            }
            return ACLEntry(action, subject, fixed: fixed)
        }
    }

    /// Adds an entry; false when it was there.
    public func insertACLEntry(_ entry: ACLEntry, scope: ObjectScope, bucket: Int64, objectID: String) throws -> Bool {
        try self.connection.execute(
            """
            INSERT INTO acl_entry (scope, bucket_id, object_id, action, subject, fixed)
            VALUES (
                \(scope.description), \(bucket), \(objectID), \(entry.action.rawValue), \(entry.subject.description),
                \(entry.fixed)
            )
            ON CONFLICT DO NOTHING
            """
        ) > 0
    }

    /// Removes an entry; false when it was not there.
    public func deleteACLEntry(_ entry: ACLEntry, scope: ObjectScope, bucket: Int64, objectID: String) throws -> Bool {
        let key = scope.description
        let subject = entry.subject.description
        guard Self.isStorableKey(key), Self.isStorableKey(objectID), Self.isStorableKey(subject) else { return false }
        return try self.connection.execute(
            """
            DELETE FROM acl_entry
            WHERE scope = \(key) AND bucket_id = \(bucket) AND object_id = \(objectID)
                AND action = \(entry.action.rawValue) AND subject = \(subject)
            """
        ) > 0
    }

    /// Records that a scope's ACL is written from now on.
    public func markScopeACLWritten(_ scope: ObjectScope) throws {
        try self.connection.execute(
            "INSERT INTO acl_scope (scope) VALUES (\(scope.description)) ON CONFLICT DO NOTHING"
        )
    }

    /// Deletes every bucket, object and ACL entry of a scope.
    public func deleteScope(_ scope: ObjectScope) throws {
        let key = scope.description
        guard Self.isStorableKey(key) else { return }
        try self.connection.execute(
            "DELETE FROM object_field WHERE bucket_id IN (SELECT id FROM bucket WHERE scope = \(key))"
        )
        try self.connection.execute(
            "DELETE FROM object WHERE bucket_id IN (SELECT id FROM bucket WHERE scope = \(key))"
        )
        try self.connection.execute("DELETE FROM bucket WHERE scope = \(key)")
        try self.connection.execute("DELETE FROM acl_entry WHERE scope = \(key)")
        try self.connection.execute("DELETE FROM acl_scope WHERE scope = \(key)")
    }

    /// Removes the ACL entries naming a subject (a deleted user or group).
    public func deleteACLEntries(naming subject: ACLSubject) throws {
        let text = subject.description
        guard Self.isStorableKey(text) else { return }
        try self.connection.execute("DELETE FROM acl_entry WHERE subject = \(text)")
    }

    /// Checks the objects area's invariants, SQLite's checks in one query; returns a description of each violation.
    public func objectInvariantViolations() throws -> [String] {
        let checks: [(what: String, sql: String)] = [
            (
                "ACL entries of missing buckets",
                """
                SELECT count(*) FROM acl_entry a
                WHERE a.bucket_id <> 0 AND NOT EXISTS (SELECT 1 FROM bucket b WHERE b.id = a.bucket_id)
                """
            ),
            (
                "ACL entries of missing objects",
                """
                SELECT count(*) FROM acl_entry a WHERE a.object_id <> ''
                    AND NOT EXISTS (
                        SELECT 1 FROM object o WHERE o.bucket_id = a.bucket_id AND o.object_id = a.object_id)
                """
            ),
            (
                "buckets of missing groups",
                """
                SELECT count(*) FROM bucket
                WHERE scope ILIKE 'group:%' AND NOT EXISTS (SELECT 1 FROM "group" g WHERE g.id = substr(scope, 7))
                """
            ),
            (
                "buckets of missing users",
                """
                SELECT count(*) FROM bucket
                WHERE scope ILIKE 'user:%' AND NOT EXISTS (SELECT 1 FROM "user" u WHERE u.id = substr(scope, 6))
                """
            ),
            (
                "ACL entries naming missing users",
                """
                SELECT count(*) FROM acl_entry a
                WHERE a.subject ILIKE 'UserID:%'
                    AND a.subject NOT IN ('UserID:ANY_AUTHENTICATED_USER', 'UserID:ANONYMOUS_USER')
                    AND NOT EXISTS (SELECT 1 FROM "user" u WHERE u.id = substr(a.subject, 8))
                """
            ),
            (
                "ACL entries naming missing groups",
                """
                SELECT count(*) FROM acl_entry a
                WHERE a.subject ILIKE 'GroupID:%'
                    AND NOT EXISTS (SELECT 1 FROM "group" g WHERE g.id = substr(a.subject, 9))
                """
            ),
            (
                "objects without their field index",
                """
                SELECT count(*) FROM object o
                WHERE NOT EXISTS (
                    SELECT 1 FROM object_field f WHERE f.object_row = o.id AND f.path = convert_to('_created', 'UTF8'))
                """
            ),
        ]
        let sql = "SELECT " + checks.map { "(\($0.sql))" }.joined(separator: ",\n")
        guard let row = try self.connection.query(PostgresQuery(unsafeSQL: sql)).first else {
            throw PostgresStoreError.unexpectedReply("no invariant counts")
        }
        let counts = row.makeRandomAccess()
        var violations: [String] = []
        for (index, check) in checks.enumerated() {
            let count = try counts[index].decode(Int64.self)
            if count > 0 { violations.append("\(count) \(check.what)") }
        }
        return violations
    }
}

extension PostgresObjectRecords {
    /// The `object` columns ``object(from:)`` reads, in its order.
    private static let objectColumns =
        "o.id, o.object_id, o.fields, o.version, o.created, o.modified, o.owner, o.acl_written"

    /// How many of ``objectColumns`` there are: the columns after them start here.
    private static let objectColumnCount = 8

    /// Reads an object from the ``objectColumns`` of `row`.
    private static func object(from row: PostgresRandomAccessRow) throws -> StoredObject {
        let fields = try row[2].decode(ByteBuffer.self)
        let value = try fields.withUnsafeReadableBytes { try JSONValue(parsing: $0) }
        guard case .object(let members) = value else {
            throw GuildError(.invalidInput, "a stored JSON object is not an object")
        }
        return StoredObject(
            rowID: try row[0].decode(Int64.self),
            objectID: try row[1].decode(String.self),
            fields: members,
            version: try row[3].decode(Int64.self),
            created: try row[4].decode(Int64.self),
            modified: try row[5].decode(Int64.self),
            owner: try row[6].decode(String?.self),
            aclWritten: try row[7].decode(Bool.self)
        )
    }

    /// An object's fields as the compact JSON text SQLite stores, in UTF-8.
    private static func json(_ fields: [String: JSONValue]) -> ByteBuffer {
        var bytes: [UInt8] = []
        JSONValue.object(fields).writeJSON(to: &bytes)
        return ByteBuffer(bytes: bytes)
    }

    /// The scope of a bucket as stored, nil when no row can hold it.
    private func scope(_ bucket: Bucket) -> String? {
        let key = bucket.scope.description
        return Self.isStorableKey(key) ? key : nil
    }

    /// A LIMIT: SQLite takes a negative one as none, PostgreSQL as NULL.
    private static func limit(_ limit: Int) -> Int64? {
        limit < 0 ? nil : Int64(limit)
    }

    // MARK: - The field index

    /// A scalar as the index's columns hold it (see ``PostgresMigration/objects``).
    private struct IndexedValue {
        var kind: Int64
        /// The exact value of a Boolean (0 or 1) or number, as numeric text; "0" for a string.
        var number: String
        /// A decimal's shortest round-trip text, "" otherwise.
        var double: String
        /// Whether the string holds U+0000 (SQLite stores it as a BLOB, which orders after all text).
        var hasNUL: Bool
        /// A string's UTF-8 bytes, none otherwise.
        var string: ByteBuffer

        init(_ value: FieldValue) {
            self.kind = Int64(value.kind)
            self.number = Self.number(value) ?? "0"
            self.double = if case .double(let number) = value { number.description } else { "" }
            if case .string(let text) = value {
                self.string = ByteBuffer(string: text)
                self.hasNUL = text.utf8.contains(0)
            } else {
                self.string = ByteBuffer()
                self.hasNUL = false
            }
        }

        /// The exact value SQLite compares a Boolean or number by, as text `numeric` reads; nil for a string.
        ///
        /// A decimal's shortest round-trip text lies within the interval of reals that round to it, so decimals
        /// order among themselves and with integers as their exact values do, as SQLite compares them; an integral
        /// decimal within Int64's range is written exactly, so it equals the integer of the same value.
        static func number(_ value: FieldValue) -> String? {
            switch value {
            case .bool(let flag): flag ? "1" : "0"
            case .int(let number): String(number)
            case .double(let number):
                if number.rounded() == number, let integer = Int64(exactly: number) {
                    String(integer)
                } else {
                    number.description
                }
            case .string: nil
            }
        }
    }

    /// Writes the object's scalars to the field index, in one statement.
    private func index(_ object: StoredObject, in bucket: Bucket) throws {
        let fields = object.indexedFields
        guard !fields.isEmpty else { return }
        let values = fields.map { IndexedValue($0.value) }
        try self.connection.execute(
            """
            INSERT INTO object_field (bucket_id, path, kind, number, double_value, has_nul, string, object_row)
            SELECT \(bucket.rowID), f.p, f.k, f.n::numeric, NULLIF(f.d, '')::double precision, f.z, f.s, \(object.rowID)
            FROM unnest(
                \(fields.map { ByteBuffer(string: $0.path) })::bytea[], \(values.map(\.kind))::smallint[],
                \(values.map(\.number))::text[], \(values.map(\.double))::text[], \(values.map(\.hasNUL))::boolean[],
                \(values.map(\.string))::bytea[]
            ) AS f (p, k, n, d, z, s)
            """
        )
    }

    /// The condition that an index entry `f` is at `path` (its first bytes first, as the index holds them).
    private static func pathCondition(_ path: FieldPath, in statement: inout PostgresStatement) -> String {
        let bytes = statement.bind(ByteBuffer(string: path.text))
        return "substring(f.path FROM 1 FOR 256) = substring(\(bytes) FROM 1 FOR 256) AND f.path = \(bytes)"
    }

    /// The objects holding one of `values` at `path`, in creation order, after row `after`: SQLite compares the
    /// values with the index's entries of the first value's kind, Booleans and numbers by value (`true` equals 1),
    /// strings by their bytes.
    private func objects(
        in bucket: Bucket,
        holding path: FieldPath,
        _ values: [FieldValue],
        after: Int64,
        limit: Int
    ) throws
        -> [(object: StoredObject, cursor: ObjectCursor)]
    {
        guard let first = values.first else { return [] }
        var statement = PostgresStatement()
        let match: String
        if first.kind == 3 {
            let strings = values.compactMap { value in
                if case .string(let text) = value { ByteBuffer(string: text) } else { nil }
            }
            let list = statement.bind(strings)
            match = """
                substring(f.string FROM 1 FOR 256) = ANY(
                    ARRAY(SELECT substring(s FROM 1 FOR 256) FROM unnest(\(list)::bytea[]) s))
                AND f.string = ANY(\(list)::bytea[])
                """
        } else {
            match = "f.number = ANY(\(statement.bind(values.compactMap(IndexedValue.number)))::text[]::numeric[])"
        }
        statement.sql = """
            SELECT \(Self.objectColumns) FROM object o WHERE o.id IN (
                SELECT f.object_row FROM object_field f
                WHERE f.bucket_id = \(statement.bind(bucket.rowID)) AND \(Self.pathCondition(path, in: &statement))
                    AND f.kind = \(statement.bind(Int64(first.kind))) AND f.object_row > \(statement.bind(after))
                    AND \(match)
                ORDER BY f.object_row LIMIT \(statement.limit(limit)))
            ORDER BY o.id
            """
        return try self.connection.query(statement.query).map { row in
            let object = try Self.object(from: row.makeRandomAccess())
            return (object, .after(object.rowID))
        }
    }

    /// Every object in the order of the field at `path` (kind, value, then creation order; reversed when
    /// `descending`), then those lacking it in creation order, after `cursor`.
    private func objects(
        in bucket: Bucket,
        orderedBy path: FieldPath,
        descending: Bool,
        after cursor: ObjectCursor?,
        limit: Int
    ) throws
        -> [(object: StoredObject, cursor: ObjectCursor)]
    {
        var page: [(object: StoredObject, cursor: ObjectCursor)] = []
        let afterRow: Int64?
        switch cursor {
        case .after(let row)?: afterRow = row
        case .afterValue?, nil: afterRow = nil
        }
        if afterRow == nil {
            let (comparison, order) = descending ? ("<", "DESC") : (">", "ASC")
            var statement = PostgresStatement()
            var condition = ""
            let bucketID = statement.bind(bucket.rowID)
            let atPath = Self.pathCondition(path, in: &statement)
            if case .afterValue(let value, let row)? = cursor {
                let indexed = IndexedValue(value)
                condition = """
                    AND (f.kind, f.number, f.has_nul, f.string, f.object_row) \(comparison) (
                        \(statement.bind(indexed.kind))::smallint, \(statement.bind(indexed.number))::numeric,
                        \(statement.bind(indexed.hasNUL)), \(statement.bind(indexed.string)), \(statement.bind(row)))
                    """
            }
            statement.sql = """
                SELECT \(Self.objectColumns), f.kind,
                    CASE WHEN f.kind <> 3 AND f.double_value IS NULL THEN f.number::bigint END, f.double_value, f.string
                FROM object_field f JOIN object o ON o.id = f.object_row
                WHERE f.bucket_id = \(bucketID) AND \(atPath) \(condition)
                ORDER BY f.kind \(order), f.number \(order), f.has_nul \(order), f.string \(order),
                    f.object_row \(order)
                LIMIT \(statement.limit(limit))
                """
            for row in try self.connection.query(statement.query) {
                let columns = row.makeRandomAccess()
                let object = try Self.object(from: columns)
                let value = try Self.fieldValue(columns, at: Self.objectColumnCount)
                page.append((object, .afterValue(value, object.rowID)))
            }
            if page.count == limit { return page }
        }
        let rows = try self.connection.query(
            """
            SELECT \(unescaped: Self.objectColumns) FROM object o
            WHERE o.bucket_id = \(bucket.rowID) AND o.id > \(afterRow ?? 0)
                AND NOT EXISTS (
                    SELECT 1 FROM object_field f
                    WHERE f.object_row = o.id AND f.path = \(ByteBuffer(string: path.text)))
            ORDER BY o.id LIMIT \(Self.limit(limit - page.count))
            """
        )
        for row in rows {
            let object = try Self.object(from: row.makeRandomAccess())
            page.append((object, .after(object.rowID)))
        }
        return page
    }

    /// A scalar read back from the index's kind, integer, decimal and string columns starting at `first`.
    private static func fieldValue(_ row: PostgresRandomAccessRow, at first: Int) throws -> FieldValue {
        let kind = try row[first].decode(Int16.self)
        let integer = try row[first + 1].decode(Int64?.self)
        let double = try row[first + 2].decode(Double?.self)
        switch kind {
        case 1: return .bool((integer ?? 0) != 0)
        case 2:
            if let double { return .double(double) }
            return .int(integer ?? 0)
        default: return .string(String(buffer: try row[first + 3].decode(ByteBuffer.self)))
        }
    }
}

extension PostgresStatement {
    /// A LIMIT's placeholder: SQLite takes a negative limit as none, as PostgreSQL takes NULL.
    fileprivate mutating func limit(_ limit: Int) -> String {
        limit < 0 ? "NULL" : self.bind(Int64(limit))
    }
}
