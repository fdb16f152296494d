import Foundation
import GuildCore
import GuildJSON
import GuildPostgres
import GuildStore
import GuildTestSupport
import PostgresNIO
import Testing

/// What an objects conformance test sees inside one transaction: the records of the users, groups and objects
/// areas, and the event log to append object and group events to.
struct ObjectTestTransaction {
    let records: any Transaction
    let appendObjectEvent: (ObjectEvent) throws -> Int64
    let appendGroupEvent: (GroupEvent) throws -> Int64
}

/// A store seen through its objects area's records: each `write` one write transaction, each `read` a read.
protocol ObjectRecordsStore: Sendable {
    func write<T: Sendable>(_ body: @escaping @Sendable (ObjectTestTransaction) throws -> T) async throws -> T
    func read<T: Sendable>(_ body: @escaping @Sendable (ObjectTestTransaction) throws -> T) async throws -> T
    /// The sequence numbers of the committed object events that `userID` may replay, in order.
    func replayable(by userID: String) async throws -> [Int64]
    /// The last committed event's number (what `append` returns names an event inside its transaction only).
    func head() async throws -> Int64
}

struct SQLiteObjectRecordsStore: ObjectRecordsStore {
    let store: SQLiteStore

    func write<T: Sendable>(_ body: @escaping @Sendable (ObjectTestTransaction) throws -> T) async throws -> T {
        try await self.store.write { tx in
            try body(ObjectTestTransaction(records: tx, appendObjectEvent: { try tx.append($0) }) { try tx.append($0) })
        }
    }

    func read<T: Sendable>(_ body: @escaping @Sendable (ObjectTestTransaction) throws -> T) async throws -> T {
        try await self.store.read { tx in
            try body(ObjectTestTransaction(records: tx, appendObjectEvent: { try tx.append($0) }) { try tx.append($0) })
        }
    }

    func replayable(by userID: String) async throws -> [Int64] {
        try await self.store.replay(userID: userID, installationID: nil, after: 0, through: .max, limit: 1000)
            .filter { $0.topic.area == ObjectEventAudience.bucketArea }.map(\.seq)
    }

    func head() async throws -> Int64 { try await self.store.eventSnapshot(userID: nil).head }
}

struct PostgresObjectRecordsStore: ObjectRecordsStore {
    let writer: PostgresWriter
    let reader: BlockingConnection

    func write<T: Sendable>(_ body: @escaping @Sendable (ObjectTestTransaction) throws -> T) async throws -> T {
        try await self.writer.write { context in
            let tx = PostgresTransaction(context)
            return try body(
                ObjectTestTransaction(records: tx, appendObjectEvent: { try tx.append($0) }) { try tx.append($0) }
            )
        }
    }

    /// A read as the PostgreSQL store runs one: a `REPEATABLE READ READ ONLY` transaction, which cannot lock rows.
    func read<T: Sendable>(_ body: @escaping @Sendable (ObjectTestTransaction) throws -> T) async throws -> T {
        let reader = self.reader
        return try await TestPostgres.blocking {
            try reader.transaction(isolation: "REPEATABLE READ READ ONLY") {
                let tx = PostgresTransaction(reading: reader)
                return try body(
                    ObjectTestTransaction(records: tx, appendObjectEvent: { try tx.append($0) }) { try tx.append($0) }
                )
            }
        }
    }

    func replayable(by userID: String) async throws -> [Int64] {
        let reader = self.reader
        return try await TestPostgres.blocking { try ObjectPostgresEventArea.replayable(by: userID, on: reader) }
    }

    func head() async throws -> Int64 {
        let reader = self.reader
        return try await TestPostgres.blocking { try PostgresEventLog.head(on: reader) }
    }
}

extension Engine {
    /// Runs `body` with a fresh, empty store of this engine, schema migrated; removes the store afterwards.
    func withObjectStore<T: Sendable>(_ body: (any ObjectRecordsStore) async throws -> T) async throws -> T {
        try await self.withFreshStore(
            sqlite: { SQLiteObjectRecordsStore(store: $0) as any ObjectRecordsStore },
            postgres: { PostgresObjectRecordsStore(writer: $0, reader: $1) },
            body
        )
    }
}

/// The objects area's records behave the same on every engine: the same buckets, objects and ACL entries, walks
/// in the same order with the same cursors, the same invariant checks.
@Suite(.timeLimit(.minutes(10)))
struct ObjectRecordsConformanceTests {
    // MARK: - Fixtures

    static let app = ObjectScope.app

    static func object(
        _ id: String,
        _ fields: [String: JSONValue],
        owner: String? = nil,
        at time: Int64 = 10
    )
        -> StoredObject
    {
        StoredObject(rowID: 0, objectID: id, fields: fields, version: 1, created: time, modified: time, owner: owner)
    }

    /// Creates bucket `name` in `scope` with `objects`, in one transaction; returns the bucket and the stored
    /// objects.
    static func fill(
        _ store: any ObjectRecordsStore,
        scope: ObjectScope = app,
        bucket name: String = "things",
        with objects: [StoredObject]
    ) async throws
        -> (bucket: Bucket, objects: [StoredObject])
    {
        try await store.write { tx in
            let bucket =
                try tx.records.objects.bucket(scope: scope, name: name)
                ?? tx.records.objects.insertBucket(scope: scope, name: name, creator: nil, now: 5)
            return (bucket, try objects.map { try tx.records.objects.insertObject($0, in: bucket) })
        }
    }

    /// Every object of a walk, `limit` at a time, with the cursor after each; checks that each page but the last
    /// is full.
    static func walk(
        _ store: any ObjectRecordsStore,
        _ bucket: Bucket,
        _ walk: ObjectWalk,
        limit: Int
    ) async throws
        -> [(id: String, cursor: ObjectCursor)]
    {
        var all: [(id: String, cursor: ObjectCursor)] = []
        var cursor: ObjectCursor?
        for _ in 0..<100 {
            let start = cursor
            let page = try await store.read { tx in
                try tx.records.objects.objects(in: bucket, walk: walk, after: start, limit: limit)
            }
            all += page.map { ($0.object.objectID, $0.cursor) }
            if page.count < limit { return all }
            cursor = page.last?.cursor
        }
        Issue.record("the walk did not end")
        return all
    }

    static func insertUser(_ id: String, _ tx: ObjectTestTransaction) throws {
        try tx.records.users.insertUser(
            UserRecordsConformanceTests.user(id, pseudo: true),
            passwordHash: nil,
            session: UserRecordsConformanceTests.session(refresh: false)
        )
    }

    // MARK: - Buckets

    @Test(arguments: Engine.available)
    func bucketsAreFoundByScopeAndNameAndListedByNameBytesWithCounts(engine: Engine) async throws {
        try await engine.withObjectStore { store in
            let (zeta, _) = try await Self.fill(
                store,
                bucket: "zeta",
                with: [Self.object("o1", [:]), Self.object("o2", [:])]
            )
            let created = try await store.write { tx in
                (
                    try tx.records.objects.insertBucket(scope: Self.app, name: "beta", creator: "u1", now: 7),
                    try tx.records.objects.insertBucket(scope: Self.app, name: "Alpha", creator: nil, now: 8),
                    try tx.records.objects.insertBucket(scope: .group("g1"), name: "beta", creator: nil, now: 9)
                )
            }
            #expect(created.0.rowID > zeta.rowID && created.1.rowID > created.0.rowID)
            #expect(
                created.0 == Bucket(rowID: created.0.rowID, scope: Self.app, name: "beta", creator: "u1", created: 7)
            )
            let (found, missing, otherScope, listed) = try await store.read { tx in
                (
                    try tx.records.objects.bucket(scope: Self.app, name: "beta"),
                    try tx.records.objects.bucket(scope: Self.app, name: "gamma"),
                    try tx.records.objects.bucket(scope: .group("g1"), name: "beta"),
                    try tx.records.objects.buckets(scope: Self.app)
                )
            }
            #expect(found == created.0)
            #expect(missing == nil)
            #expect(otherScope == created.2)
            #expect(listed.map(\.bucket.name) == ["Alpha", "beta", "zeta"])
            #expect(listed.map(\.count) == [0, 0, 2])
            #expect(listed[2].bucket == zeta)
            // A scope and name are unique.
            await #expect(throws: (any Error).self) {
                try await store.write { tx in
                    _ = try tx.records.objects.insertBucket(scope: Self.app, name: "beta", creator: nil, now: 9)
                }
            }
        }
    }

    @Test(arguments: Engine.available)
    func deletingABucketDeletesItsObjectsAndTheirEntriesOnly(engine: Engine) async throws {
        try await engine.withObjectStore { store in
            let (doomed, objects) = try await Self.fill(store, bucket: "doomed", with: [Self.object("o1", ["a": 1])])
            let (kept, _) = try await Self.fill(store, bucket: "kept", with: [Self.object("o1", ["a": 1])])
            let entry = ACLEntry(.readExistingObject, .anonymous)
            try await store.write { tx in
                for bucket in [doomed, kept] {
                    _ = try tx.records.objects.insertACLEntry(entry, scope: Self.app, bucket: bucket.rowID, objectID: "")
                    _ = try tx.records.objects.insertACLEntry(entry, scope: Self.app, bucket: bucket.rowID, objectID: "o1")
                }
                try tx.records.objects.deleteBucket(doomed)
            }
            let after = try await store.read { tx in
                (
                    try tx.records.objects.bucket(scope: Self.app, name: "doomed"),
                    try tx.records.objects.object(in: doomed, id: "o1"),
                    try tx.records.objects.aclEntries(scope: Self.app, bucket: doomed.rowID, objectID: "", action: nil),
                    try tx.records.objects.aclEntries(scope: Self.app, bucket: doomed.rowID, objectID: "o1", action: nil),
                    try tx.records.objects.objects(
                        in: doomed,
                        walk: .holding(try FieldPath("a", field: "f"), [.int(1)]),
                        after: nil,
                        limit: 10
                    ),
                    try tx.records.objects.aclEntries(scope: Self.app, bucket: kept.rowID, objectID: "o1", action: nil),
                    try tx.records.objects.buckets(scope: Self.app).map(\.bucket.name),
                    try tx.records.objects.objectInvariantViolations()
                )
            }
            #expect(objects.count == 1)
            #expect(after.0 == nil && after.1 == nil)
            #expect(after.2 == [] && after.3 == [] && after.4.isEmpty)
            #expect(after.5 == [entry])
            #expect(after.6 == ["kept"])
            #expect(after.7 == [])
        }
    }

    // MARK: - Objects

    @Test(arguments: Engine.available)
    func objectsAreStoredReadUpdatedAndDeletedWhole(engine: Engine) async throws {
        try await engine.withObjectStore { store in
            let fields: [String: JSONValue] = [
                "name": "Zoë \u{0}nul", "n": 3, "d": 2.5, "flag": true, "none": .null, "list": [1, "two", ["x": 1]],
                "nested": ["deep": ["deeper": "v"]], "slash/key": "a/b",
            ]
            let (bucket, stored) = try await Self.fill(
                store,
                with: [Self.object("o1", fields, owner: "u1"), Self.object("o2", [:], at: 11)]
            )
            #expect(stored[0].rowID > 0 && stored[1].rowID > stored[0].rowID)
            #expect(
                stored[0]
                    == StoredObject(
                        rowID: stored[0].rowID,
                        objectID: "o1",
                        fields: fields,
                        version: 1,
                        created: 10,
                        modified: 10,
                        owner: "u1"
                    )
            )
            let read = try await store.read { tx in
                (try tx.records.objects.object(in: bucket, id: "o1"), try tx.records.objects.object(in: bucket, id: "o3"))
            }
            #expect(read.0 == stored[0])
            #expect(read.1 == nil)
            // An object id is unique in its bucket.
            await #expect(throws: (any Error).self) {
                try await store.write { tx in _ = try tx.records.objects.insertObject(Self.object("o1", [:]), in: bucket) }
            }

            var changed = stored[0]
            changed.fields = ["name": "new", "n": 4]
            changed.version = 2
            changed.modified = 20
            let name = try FieldPath("name", field: "f")
            let update = changed
            let updated = try await store.write { tx in
                try tx.records.objects.updateObject(update, in: bucket)
                try tx.records.objects.markObjectACLWritten(update, in: bucket)
                return try tx.records.objects.object(in: bucket, id: "o1")
            }
            changed.aclWritten = true
            #expect(updated == changed)
            // The field index follows the update: the old value is gone, the new one found.
            let (old, new) = try await store.read { tx in
                (
                    try tx.records.objects.objects(
                        in: bucket,
                        walk: .holding(name, [.string("Zoë \u{0}nul")]),
                        after: nil,
                        limit: 10
                    ),
                    try tx.records.objects.objects(in: bucket, walk: .holding(name, [.string("new")]), after: nil, limit: 10)
                )
            }
            #expect(old.isEmpty)
            #expect(new.map(\.object) == [changed])

            let entry = ACLEntry(.writeExistingObject, .user("u2"))
            let doomed = changed
            let remaining = try await store.write { tx in
                _ = try tx.records.objects.insertACLEntry(entry, scope: Self.app, bucket: bucket.rowID, objectID: "o1")
                _ = try tx.records.objects.insertACLEntry(entry, scope: Self.app, bucket: bucket.rowID, objectID: "o2")
                try tx.records.objects.deleteObject(doomed, in: bucket)
                return (
                    try tx.records.objects.object(in: bucket, id: "o1"),
                    try tx.records.objects.aclEntries(scope: Self.app, bucket: bucket.rowID, objectID: "o1", action: nil),
                    try tx.records.objects.aclEntries(scope: Self.app, bucket: bucket.rowID, objectID: "o2", action: nil),
                    try tx.records.objects.objects(in: bucket, walk: .all, after: nil, limit: 10).map(\.object.objectID),
                    try tx.records.objects.buckets(scope: Self.app).map(\.count)
                )
            }
            #expect(remaining.0 == nil)
            #expect(remaining.1 == [])
            #expect(remaining.2 == [entry])
            #expect(remaining.3 == ["o2"])
            #expect(remaining.4 == [1])
        }
    }

    // MARK: - Walks

    @Test(arguments: Engine.available)
    func walkingAllObjectsPagesInCreationOrder(engine: Engine) async throws {
        try await engine.withObjectStore { store in
            let (bucket, objects) = try await Self.fill(
                store,
                with: (1...7).map { Self.object("o\($0)", ["i": .int(Int64($0))]) }
            )
            _ = try await Self.fill(store, bucket: "other", with: [Self.object("x1", [:])])
            for limit in [1, 3, 7, 10] {
                let walked = try await Self.walk(store, bucket, .all, limit: limit)
                #expect(walked.map(\.id) == objects.map(\.objectID))
                #expect(walked.map(\.cursor) == objects.map { .after($0.rowID) })
            }
            // A cursor of another walk starts from the beginning, as in SQLite.
            let restarted = try await store.read { tx in
                try tx.records.objects.objects(in: bucket, walk: .all, after: .afterValue(.int(1), objects[3].rowID), limit: 2)
            }
            #expect(restarted.map(\.object.objectID) == ["o1", "o2"])
        }
    }

    @Test(arguments: Engine.available)
    func holdingWalksCompareAsSQLiteComparesTheFirstValuesKind(engine: Engine) async throws {
        try await engine.withObjectStore { store in
            let values: [(String, JSONValue)] = [
                ("b-true", true), ("b-false", false), ("n-1", 1), ("n-1.0", 1.0), ("n-2", 2), ("n-2.5", 2.5),
                ("s-1", "1"), ("s-a", "a"), ("s-nul", "a\u{0}b"),
                ("s-long", .string(String(repeating: "x", count: 3000))),
                ("nested", ["k": 1]),
            ]
            let (bucket, _) = try await Self.fill(store, with: values.map { Self.object($0.0, ["k": $0.1]) })
            let k = try FieldPath("k", field: "f")
            func holding(_ wanted: [FieldValue], path: FieldPath = k) async throws -> [String] {
                try await Self.walk(store, bucket, .holding(path, wanted), limit: 2).map(\.id)
            }
            #expect(try await holding([.int(1)]) == ["n-1", "n-1.0"])
            #expect(try await holding([.double(1)]) == ["n-1", "n-1.0"])
            #expect(try await holding([.int(2), .double(2.5), .string("a")]) == ["n-2", "n-2.5"])
            // The first value's kind picks the entries; a number equal to a Boolean's 0 or 1 matches it there.
            #expect(try await holding([.bool(true)]) == ["b-true"])
            #expect(try await holding([.bool(false), .int(1)]) == ["b-true", "b-false"])
            #expect(try await holding([.int(1), .bool(true)]) == ["n-1", "n-1.0"])
            #expect(try await holding([.string("1")]) == ["s-1"])
            #expect(try await holding([.string("a"), .int(1)]) == ["s-a"])
            #expect(try await holding([.string("a\u{0}b"), .string("a\u{0}")]) == ["s-nul"])
            #expect(try await holding([.string(String(repeating: "x", count: 3000))]) == ["s-long"])
            #expect(try await holding([.string(String(repeating: "x", count: 2999))]) == [])
            #expect(try await holding([.int(1)], path: try FieldPath("k.k", field: "f")) == ["nested"])
            #expect(try await holding([.int(3)]) == [])
            // The reserved fields are indexed too (not `_id`).
            #expect(try await holding([.int(10)], path: try FieldPath("_created", field: "f")).count == values.count)
            #expect(try await holding([.string("n-1")], path: try FieldPath("_id", field: "f")) == [])
            // Cursors are the objects' rows; a page continues after its cursor.
            let all = try await Self.walk(store, bucket, .holding(k, [.int(1), .int(2)]), limit: 1)
            #expect(all.map(\.id) == ["n-1", "n-1.0", "n-2"])
            let rows = try await store.read { tx in
                try ["n-1", "n-1.0", "n-2"].map { try tx.records.objects.object(in: bucket, id: $0)!.rowID }
            }
            #expect(all.map(\.cursor) == rows.map { .after($0) })
        }
    }

    @Test(arguments: Engine.available)
    func orderedWalksFollowTheIndexOrderThenObjectsLackingTheField(engine: Engine) async throws {
        try await engine.withObjectStore { store in
            let values: [(String, JSONValue?)] = [
                ("s-b", "b"), ("n-big", .int(1 << 60)), ("none-1", nil), ("b-true", true), ("n-2.5", 2.5),
                ("s-nul", "a\u{0}"), ("n-1", 1), ("s-a", "a"), ("b-false", false), ("n-1.0", 1.0), ("s-empty", ""),
                ("n-neg", -7), ("s-B", "B"), ("none-2", nil), ("n-bigd", .double(Double(1 << 60))), ("s-é", "é"),
                ("n-tiny", 0.1), ("n-tiny2", 0.30000000000000004), ("n-tiny3", 0.3), ("n-max", .int(.max)),
                ("n-huge", 1e300), ("obj", ["x": 1]),
            ]
            let (bucket, objects) = try await Self.fill(
                store,
                with: values.map { Self.object($0.0, $0.1.map { ["k": $0] } ?? ["other": 1]) }
            )
            let row = Dictionary(uniqueKeysWithValues: objects.map { ($0.objectID, $0.rowID) })
            let k = try FieldPath("k", field: "f")
            let ascending = [
                "b-false", "b-true", "n-neg", "n-tiny", "n-tiny3", "n-tiny2", "n-1", "n-1.0", "n-2.5", "n-big",
                "n-bigd",
                "n-max", "n-huge", "s-empty", "s-B", "s-a", "s-b", "s-é", "s-nul",
            ]
            let lacking = ["none-1", "none-2", "obj"]
            func cursor(_ id: String) -> ObjectCursor {
                guard let value = values.first(where: { $0.0 == id })?.1.flatMap(FieldValue.init) else {
                    return .after(row[id]!)
                }
                return .afterValue(value, row[id]!)
            }
            for limit in [1, 2, 5, 19, 40] {
                let up = try await Self.walk(store, bucket, .ordered(k, descending: false), limit: limit)
                #expect(up.map(\.id) == ascending + lacking, "limit \(limit)")
                #expect(up.map(\.cursor) == (ascending + lacking).map(cursor), "limit \(limit)")
                let down = try await Self.walk(store, bucket, .ordered(k, descending: true), limit: limit)
                // Equal values in reverse creation order too; the objects lacking the field stay in creation order.
                let descending = Array(ascending.reversed())
                #expect(down.map(\.id) == descending + lacking, "limit \(limit)")
                #expect(down.map(\.cursor) == (descending + lacking).map(cursor), "limit \(limit)")
            }
            // A cursor into the objects lacking the field continues there; one past a value continues after it.
            let tail = try await store.read { tx in
                (
                    try tx.records.objects.objects(
                        in: bucket,
                        walk: .ordered(k, descending: false),
                        after: .after(row["none-1"]!),
                        limit: 5
                    ),
                    try tx.records.objects.objects(
                        in: bucket,
                        walk: .ordered(k, descending: false),
                        after: .afterValue(.double(1), row["n-1"]!),
                        limit: 2
                    ),
                    try tx.records.objects.objects(
                        in: bucket,
                        walk: .ordered(k, descending: false),
                        after: .afterValue(.string("a"), 0),
                        limit: 2
                    )
                )
            }
            #expect(tail.0.map(\.object.objectID) == ["none-2", "obj"])
            #expect(tail.1.map(\.object.objectID) == ["n-1.0", "n-2.5"])
            #expect(tail.2.map(\.object.objectID) == ["s-a", "s-b"])
        }
    }

    // MARK: - ACL entries

    @Test(arguments: Engine.available)
    func aclEntriesOfScopesBucketsAndObjectsNameUsersGroupsAndAnyone(engine: Engine) async throws {
        try await engine.withObjectStore { store in
            let scope = ObjectScope.user("owner")
            let (bucket, _) = try await Self.fill(store, scope: scope, with: [Self.object("o1", [:])])
            let unwritten = try await store.read { tx in
                (
                    try tx.records.objects.aclEntries(scope: scope, bucket: 0, objectID: "", action: nil),
                    try tx.records.objects.aclEntries(scope: scope, bucket: bucket.rowID, objectID: "", action: nil)
                )
            }
            #expect(unwritten.0 == nil)
            #expect(unwritten.1 == [])
            let scopeEntries = [
                ACLEntry(.createNewBucket, .user("owner"), fixed: true), ACLEntry(.createNewBucket, .anyAuthenticated),
                ACLEntry(.createNewBucket, .group("g1")),
            ]
            let bucketEntries = [
                ACLEntry(.queryObjectsInBucket, .anonymous), ACLEntry(.createObjectsInBucket, .thing("t1")),
                ACLEntry(.createObjectsInBucket, .user("b")), ACLEntry(.createObjectsInBucket, .group("A")),
            ]
            let objectEntries = [
                ACLEntry(.writeExistingObject, .user("u1")), ACLEntry(.readExistingObject, .group("g1")),
            ]
            let inserted = try await store.write { tx in
                try tx.records.objects.markScopeACLWritten(scope)
                try tx.records.objects.markScopeACLWritten(scope)
                var inserted: [Bool] = []
                for entry in scopeEntries {
                    inserted.append(try tx.records.objects.insertACLEntry(entry, scope: scope, bucket: 0, objectID: ""))
                }
                for entry in bucketEntries {
                    inserted.append(
                        try tx.records.objects.insertACLEntry(entry, scope: scope, bucket: bucket.rowID, objectID: "")
                    )
                }
                for entry in objectEntries {
                    inserted.append(
                        try tx.records.objects.insertACLEntry(entry, scope: scope, bucket: bucket.rowID, objectID: "o1")
                    )
                }
                // Again, and with another `fixed`: the entry is there already.
                inserted.append(
                    try tx.records.objects.insertACLEntry(
                        ACLEntry(.createNewBucket, .user("owner")),
                        scope: scope,
                        bucket: 0,
                        objectID: ""
                    )
                )
                return inserted
            }
            #expect(inserted == Array(repeating: true, count: 9) + [false])
            let read = try await store.read { tx in
                (
                    try tx.records.objects.aclEntries(scope: scope, bucket: 0, objectID: "", action: nil),
                    try tx.records.objects.aclEntries(scope: scope, bucket: bucket.rowID, objectID: "", action: nil),
                    try tx.records.objects.aclEntries(
                        scope: scope,
                        bucket: bucket.rowID,
                        objectID: "",
                        action: .createObjectsInBucket
                    ),
                    try tx.records.objects.aclEntries(
                        scope: scope,
                        bucket: bucket.rowID,
                        objectID: "o1",
                        action: .readExistingObject
                    ),
                    try tx.records.objects.aclEntries(scope: .user("other"), bucket: bucket.rowID, objectID: "o1", action: nil)
                )
            }
            // By action, then subject, as bytes.
            #expect(
                read.0 == [
                    ACLEntry(.createNewBucket, .group("g1")), ACLEntry(.createNewBucket, .anyAuthenticated),
                    ACLEntry(.createNewBucket, .user("owner"), fixed: true),
                ]
            )
            #expect(
                read.1 == [
                    ACLEntry(.createObjectsInBucket, .group("A")), ACLEntry(.createObjectsInBucket, .thing("t1")),
                    ACLEntry(.createObjectsInBucket, .user("b")), ACLEntry(.queryObjectsInBucket, .anonymous),
                ]
            )
            #expect(read.2 == Array(read.1!.prefix(3)))
            #expect(read.3 == [ACLEntry(.readExistingObject, .group("g1"))])
            #expect(read.4 == [])

            let deleted = try await store.write { tx in
                [
                    try tx.records.objects.deleteACLEntry(
                        ACLEntry(.createNewBucket, .anyAuthenticated),
                        scope: scope,
                        bucket: 0,
                        objectID: ""
                    ),
                    try tx.records.objects.deleteACLEntry(
                        ACLEntry(.createNewBucket, .anyAuthenticated),
                        scope: scope,
                        bucket: 0,
                        objectID: ""
                    ),
                    try tx.records.objects.deleteACLEntry(
                        ACLEntry(.createNewBucket, .group("g1")),
                        scope: scope,
                        bucket: bucket.rowID,
                        objectID: ""
                    ),
                ]
            }
            #expect(deleted == [true, false, false])
            // A deleted group's entries go everywhere.
            let afterGroup = try await store.write { tx in
                try tx.records.objects.deleteACLEntries(naming: .group("g1"))
                return (
                    try tx.records.objects.aclEntries(scope: scope, bucket: 0, objectID: "", action: nil),
                    try tx.records.objects.aclEntries(scope: scope, bucket: bucket.rowID, objectID: "o1", action: nil)
                )
            }
            #expect(afterGroup.0 == [ACLEntry(.createNewBucket, .user("owner"), fixed: true)])
            #expect(afterGroup.1 == [ACLEntry(.writeExistingObject, .user("u1"))])
        }
    }

    @Test(arguments: Engine.available)
    func deletingAScopeDeletesItsBucketsObjectsAndEntriesOnly(engine: Engine) async throws {
        try await engine.withObjectStore { store in
            let doomed = ObjectScope.group("g1")
            let kept = ObjectScope.group("g2")
            let (bucket, _) = try await Self.fill(store, scope: doomed, with: [Self.object("o1", ["a": 1])])
            let (keptBucket, _) = try await Self.fill(store, scope: kept, with: [Self.object("o1", ["a": 1])])
            let entry = ACLEntry(.readExistingObject, .anonymous)
            let after = try await store.write { tx in
                for (scope, bucket) in [(doomed, bucket), (kept, keptBucket)] {
                    try tx.records.objects.markScopeACLWritten(scope)
                    _ = try tx.records.objects.insertACLEntry(
                        ACLEntry(.createNewBucket, .anonymous),
                        scope: scope,
                        bucket: 0,
                        objectID: ""
                    )
                    _ = try tx.records.objects.insertACLEntry(entry, scope: scope, bucket: bucket.rowID, objectID: "o1")
                }
                try tx.records.objects.deleteScope(doomed)
                return (
                    try tx.records.objects.buckets(scope: doomed).count,
                    try tx.records.objects.aclEntries(scope: doomed, bucket: 0, objectID: "", action: nil),
                    try tx.records.objects.aclEntries(scope: doomed, bucket: bucket.rowID, objectID: "o1", action: nil),
                    try tx.records.objects.buckets(scope: kept).map(\.count),
                    try tx.records.objects.aclEntries(scope: kept, bucket: 0, objectID: "", action: nil),
                    try tx.records.objects.aclEntries(scope: kept, bucket: keptBucket.rowID, objectID: "o1", action: nil)
                )
            }
            #expect(after.0 == 0)
            #expect(after.1 == nil)
            #expect(after.2 == [])
            #expect(after.3 == [1])
            #expect(after.4 == [ACLEntry(.createNewBucket, .anonymous)])
            #expect(after.5 == [entry])
        }
    }

    // MARK: - Invariants

    @Test(arguments: Engine.available)
    func invariantChecksFindEntriesAndBucketsOfWhatIsGone(engine: Engine) async throws {
        try await engine.withObjectStore { store in
            let violations = try await store.write { tx in
                try Self.insertUser("u1", tx)
                try tx.records.groups.insertGroup(id: "g1", name: "G", type: .basic, now: 1)
                try tx.records.groups.insertMember(groupID: "g1", userID: "u1", role: .owner, now: 1)
                var found: [[String]] = []
                let userBucket = try tx.records.objects.insertBucket(scope: .user("u1"), name: "b1", creator: "u1", now: 1)
                let groupBucket = try tx.records.objects.insertBucket(scope: .group("g1"), name: "b1", creator: nil, now: 1)
                _ = try tx.records.objects.insertObject(Self.object("o1", ["a": 1]), in: userBucket)
                for subject in [ACLSubject.user("u1"), .group("g1"), .anyAuthenticated, .anonymous, .thing("t9")] {
                    _ = try tx.records.objects.insertACLEntry(
                        ACLEntry(.readExistingObject, subject),
                        scope: .user("u1"),
                        bucket: userBucket.rowID,
                        objectID: "o1"
                    )
                }
                _ = try tx.records.objects.insertACLEntry(
                    ACLEntry(.readObjectsInBucket, .user("u1")),
                    scope: .group("g1"),
                    bucket: groupBucket.rowID,
                    objectID: ""
                )
                found.append(try tx.records.objects.objectInvariantViolations())
                _ = try tx.records.objects.insertBucket(scope: .user("ghost"), name: "b1", creator: nil, now: 1)
                _ = try tx.records.objects.insertBucket(scope: .group("ghost"), name: "b1", creator: nil, now: 1)
                _ = try tx.records.objects.insertBucket(scope: .group("ghost2"), name: "b1", creator: nil, now: 1)
                found.append(try tx.records.objects.objectInvariantViolations())
                for subject in [ACLSubject.user("ghost"), .group("ghost")] {
                    _ = try tx.records.objects.insertACLEntry(
                        ACLEntry(.createNewBucket, subject),
                        scope: .app,
                        bucket: 0,
                        objectID: ""
                    )
                }
                _ = try tx.records.objects.insertACLEntry(
                    ACLEntry(.readObjectsInBucket, .anonymous),
                    scope: .app,
                    bucket: 99_999,
                    objectID: ""
                )
                _ = try tx.records.objects.insertACLEntry(
                    ACLEntry(.readExistingObject, .anonymous),
                    scope: .user("u1"),
                    bucket: userBucket.rowID,
                    objectID: "gone"
                )
                found.append(try tx.records.objects.objectInvariantViolations())
                return found
            }
            #expect(violations[0] == [])
            #expect(violations[1] == ["2 buckets of missing groups", "1 buckets of missing users"])
            #expect(
                violations[2] == [
                    "1 ACL entries of missing buckets", "1 ACL entries of missing objects",
                    "2 buckets of missing groups",
                    "1 buckets of missing users", "1 ACL entries naming missing users",
                    "1 ACL entries naming missing groups",
                ]
            )
        }
    }

    // MARK: - Replay

    @Test(arguments: Engine.available)
    func objectEventsReplayToTheirReadersAtTheTime(engine: Engine) async throws {
        try await engine.withObjectStore { store in
            @Sendable func event(_ readers: ObjectReaders, time: Int64) -> ObjectEvent {
                ObjectEvent(
                    kind: .objectCreated,
                    scope: .app,
                    bucket: "b1",
                    objectID: "o1",
                    object: ["a": 1],
                    actor: nil,
                    time: time,
                    readers: readers
                )
            }
            try await store.write { tx in
                for user in ["u1", "u2", "u3"] { try Self.insertUser(user, tx) }
                try tx.records.groups.insertGroup(id: "g1", name: "G", type: .basic, now: 1)
                _ = try tx.appendObjectEvent(event(ObjectReaders(users: ["u1", "u1"]), time: 1))
                _ = try tx.appendObjectEvent(event(ObjectReaders(groups: ["g1"]), time: 2))
                _ = try tx.appendGroupEvent(GroupEvent(kind: .memberEnter, groupID: "g1", actor: "u2", time: 3, joined: ["u2"]))
                _ = try tx.appendObjectEvent(event(ObjectReaders(users: ["u3"], groups: ["g1"]), time: 4))
                _ = try tx.appendObjectEvent(event(ObjectReaders(users: ["u1"], everyone: true), time: 5))
            }
            // The five events are the log's last; the third is the group's.
            let head = try await store.head()
            let seqs = [head - 4, head - 3, head - 1, head]
            #expect(try await store.replayable(by: "u1") == [seqs[0], seqs[3]])
            #expect(try await store.replayable(by: "u2") == [seqs[2], seqs[3]])
            #expect(try await store.replayable(by: "u3") == [seqs[2], seqs[3]])
            #expect(try await store.replayable(by: "nobody") == [seqs[3]])
        }
    }

    // MARK: - Several hosts

    /// Two hosts, each with its own writer, update one object with the same expected version at once, as
    /// `ObjectService.update(ifVersion:)` does (read the object, check its version, write): the first wins, the
    /// second reads the object as the first left it (its read waits for the first's lock) and is stale.
    @Test(.enabled(if: TestPostgres.isConfigured))
    func ofTwoHostsUpdatingOneVersionExactlyOneWins() async throws {
        try await TestPostgres.withDatabase { location in
            let reader = try await TestPostgres.connect(location)
            let hosts = (0..<2).map { _ in PostgresWriter(location: location, logger: TestPostgres.logger) }
            do {
                try await TestPostgres.blocking { _ = try PostgresMigrator.migrate(reader) }
                let store = PostgresObjectRecordsStore(writer: hosts[0], reader: reader)
                let (bucket, _) = try await Self.fill(store, with: [Self.object("o1", ["n": 0])])
                async let first = Self.update(bucket, on: hosts[0], as: 1)
                async let second = Self.update(bucket, on: hosts[1], as: 2)
                let outcomes = await [first, second]
                let winners = outcomes.compactMap { try? $0.get() }
                #expect(winners.count == 1)
                for case .failure(let error) in outcomes {
                    #expect((error as? GuildError)?.code == .objectVersionIsStale, "\(error)")
                }
                let stored = try await store.read { tx in try tx.records.objects.object(in: bucket, id: "o1") }
                #expect(stored?.version == 2)
                #expect(stored?.fields == ["n": .int(winners.first ?? 0)])
                for host in hosts { try await host.close() }
                try await TestPostgres.blocking { reader.close() }
            } catch {
                for host in hosts { try? await host.close() }
                try? await TestPostgres.blocking { reader.close() }
                throw error
            }
        }
    }

    /// What the service's `update(ifVersion: 1)` does on one host: the object's new version's `n` is `host`.
    static func update(_ bucket: Bucket, on writer: PostgresWriter, as host: Int64) async -> Result<Int64, any Error> {
        do {
            return .success(
                try await writer.write { context in
                    let tx = PostgresTransaction(context)
                    guard var object = try tx.objects.object(in: bucket, id: "o1") else {
                        throw GuildError(.objectNotFound, "no object o1")
                    }
                    guard object.version == 1 else {
                        throw GuildError(
                            .objectVersionIsStale,
                            "at version \(object.version), not 1",
                            field: "ifVersion"
                        )
                    }
                    // Long enough for the other host to read the object meanwhile, were it not locked.
                    Thread.sleep(forTimeInterval: 0.3)
                    object.fields = ["n": .int(host)]
                    object.version += 1
                    object.modified = 20
                    try tx.objects.updateObject(object, in: bucket)
                    return host
                }
            )
        } catch {
            return .failure(error)
        }
    }
}
