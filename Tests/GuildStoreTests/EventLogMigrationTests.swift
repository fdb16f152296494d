import Foundation
import GRDB
import GuildCore
import Testing

@testable import GuildStore

/// The event log's move from groups to topics, on a database made by the migrations before it.
struct EventLogMigrationTests {
    @Test func backfillsTopicsAndKeepsSequenceAndForeignKeys() async throws {
        try await withTemporaryDatabasePath("guild-migration") { path in
            let old = try DatabaseQueue(path: path)
            try Migrations.migrator(areas: SQLiteStore.areas).migrate(old, upTo: "v6: members who receive no copy of an event (NOT_RECEIVE)")
            try await old.write { db in
                for (index, groupID) in ["g1", "g2", "g1", "g2"].enumerated() {
                    try db.execute(
                        sql: "INSERT INTO event (kind, groupID, audience, body, time) VALUES (?, ?, ?, ?, ?)",
                        arguments: ["groupInfoChanged", groupID, index == 1 ? "named" : "members", Data(#"{"groupID":"\#(groupID)"}"#.utf8), index]
                    )
                }
                try db.execute(sql: "INSERT INTO event_subject (userID, seq) VALUES ('u1', 2), ('u2', 3)")
                try db.execute(sql: "INSERT INTO event_excluded (seq, userID) VALUES (3, 'u3')")
                // Pruned: the newest sequence number is 4 although only 2 and 3 remain.
                try db.execute(sql: "DELETE FROM event WHERE seq IN (1, 4)")
            }
            try old.close()

            let store = try SQLiteStore(configuration: .init(path: path))
            defer { try? store.close() }
            let (columns, seqs, topics, counter, violations, subjects, excluded) = try await store.pool.read { db in
                (
                    try db.columns(in: "event").map(\.name),
                    try Int64.fetchAll(db, sql: "SELECT seq FROM event ORDER BY seq"),
                    try String.fetchAll(db, sql: "SELECT topic FROM event ORDER BY seq"),
                    try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'event'"),
                    try Row.fetchAll(db, sql: "PRAGMA foreign_key_check").count,
                    try Int.fetchOne(db, sql: "SELECT count(*) FROM event_subject") ?? 0,
                    try Int.fetchOne(db, sql: "SELECT count(*) FROM event_excluded") ?? 0
                )
            }
            #expect(columns == ["seq", "topic", "kind", "audience", "body", "time"])
            #expect(seqs == [2, 3])
            #expect(topics == ["group:g2", "group:g1"])
            #expect(counter == 4)
            #expect(violations == 0)
            #expect(subjects == 2 && excluded == 1)
            #expect(try await store.integrityCheck() == ["ok"])

            // Replay reads the rebuilt table by its areas' rules; the next event continues the sequence.
            #expect(try await store.replay(userID: nil, after: 0, through: 10, limit: 10).map(\.topic) == [.group("g2"), .group("g1")])
            #expect(try await store.replay(userID: "u1", after: 0, through: 10, limit: 10).map(\.seq) == [2])
            #expect(try await store.replay(userID: "u3", after: 0, through: 10, limit: 10).isEmpty)
            let next = try await store.write { tx in
                try tx.append(GroupEvent(kind: .groupInfoChanged, groupID: "g1", actor: nil, users: ["u2"], audience: .named, time: 9))
            }
            #expect(next == 5)
            // The references follow the new table: deleting an event still cascades to its named users.
            let remaining = try await store.writeDatabase { db in
                try db.execute(sql: "DELETE FROM event WHERE seq = 3")
                return try Int.fetchOne(db, sql: "SELECT count(*) FROM event_subject WHERE seq = 3") ?? -1
            }
            #expect(remaining == 0)
        }
    }
}
