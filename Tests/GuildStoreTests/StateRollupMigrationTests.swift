import Foundation
import GRDB
import GuildCore
import GuildJSON
import GuildTestSupport
import Testing

@testable import GuildStore

/// `things-8`: the minute rollups are filled from the states a database already keeps, as uploads would have
/// filled them, and the grouped and paged histories read through the indexes meant for them.
struct StateRollupMigrationTests {
    static let fields = ["t", "on", "s", "n", "q\"uote", "é", "o", "z", "w\u{FFFD}", "v", "big", "arr", "a\u{0}b"]

    @Test func theRollupsOfTheStatesKeptAreFilledAsUploadsFillThem() async throws {
        try await withTemporaryDatabasePath("guild-rollups") { path in
            let migrator = Migrations.migrator(areas: SQLiteStore.areas)
            let old = try DatabaseQueue(path: path)
            try migrator.migrate(old, upTo: "things-7: trigger revisions and firing ordinals")
            try await old.write { db in
                for id in ["th.1", "th.2"] {
                    try db.execute(
                        sql: """
                            INSERT INTO thing (thingID, vendorThingID, passwordHash, properties, created, modified, hasState)
                            VALUES (?, ?, 'hash', CAST('{}' AS BLOB), 10, 10, 1)
                            """,
                        arguments: [id, "lamp-" + id]
                    )
                }
                for (text, timestamp) in OddStates.all {
                    try db.execute(
                        sql: "INSERT INTO thing_state (thingID, timestamp, state, uploaded) VALUES ('th.1', ?, ?, 1)",
                        arguments: [timestamp, Data(text.utf8)]
                    )
                }
            }
            try old.close()

            let store = try SQLiteStore(configuration: .init(path: path))
            defer { try? store.close() }
            let states = try OddStates.all.map { state in
                ThingState(state: try StoredJSON.object(Data(state.text.utf8)), timestamp: state.timestamp)
            }
            // The same states uploaded now, to another thing: the same rollups.
            try await store.write { tx in
                for state in states { try tx.things.insertState(thingID: "th.2", state: state, uploaded: 2) }
            }
            let grouping = try StateGrouping(from: -180_000, to: 179_999, interval: 60_000)
            let (filled, uploaded) = try await store.read { tx in
                (
                    try grouping.totals(thingID: "th.1", fields: Set(Self.fields), in: tx.things),
                    try grouping.totals(thingID: "th.2", fields: Set(Self.fields), in: tx.things)
                )
            }
            #expect(filled == uploaded)
            // Groups are minutes -3 to 2: minute 0 has four states, three of them with a number `t`.
            #expect(filled[3][StateRollup.statesField]?.count == 4)
            #expect(filled[3]["t"] == FieldTotals(count: 3, numbers: 3, decimals: 2, sum: 10.75, minimum: 0.25, maximum: 7.5))
            #expect(filled[2]["t"]?.sum == -4 && filled[1]["t"]?.sum == 12_345_678_901)
            #expect(filled[4]["a\u{0}b"] == nil && filled[4]["o"]?.count == 1 && filled[4]["z"]?.count == 1)
            #expect(try await store.read { try $0.things.thingInvariantViolations() } == [])

            try await store.pool.read { db in
                func plan(_ sql: String) throws -> [String] {
                    try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql).map { $0["detail"] as String }
                }
                // A grouped query reads the rollups through their key, and the states by time through their index.
                let rollups = try plan(
                    """
                    SELECT field, sum(count) FROM thing_state_rollup
                    WHERE thingID = 'th.1' AND field IN (SELECT value FROM json_each('["","t"]')) AND minute BETWEEN 1 AND 9
                    GROUP BY field
                    """
                )
                #expect(rollups.contains { $0.contains("PRIMARY KEY") }, "\(rollups)")
                let byTime = try plan(
                    "SELECT timestamp, state FROM thing_state WHERE thingID = 'th.1' AND timestamp >= 1 AND timestamp <= 5 ORDER BY timestamp, id"
                )
                #expect(byTime.contains { $0.contains("thing_state_time") } && !byTime.contains { $0.contains("TEMP B-TREE") }, "\(byTime)")
                // The paged history stays on the thing's rows by id.
                let paged = try plan(
                    """
                    SELECT id, timestamp, state FROM thing_state
                    WHERE thingID = 'th.1' AND id > 0 AND +timestamp >= 0 AND +timestamp <= 9 ORDER BY id LIMIT 5
                    """
                )
                #expect(paged.contains { $0.contains("thing_state_thing") } && !paged.contains { $0.contains("TEMP B-TREE") }, "\(paged)")
            }
            #expect(try await store.integrityCheck() == ["ok"])
        }
    }
}
