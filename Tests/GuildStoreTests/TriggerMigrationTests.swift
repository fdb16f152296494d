import Foundation
import GRDB
import GuildCore
import GuildJSON
import Testing

@testable import GuildStore

/// `things-6`: the trigger table is rebuilt for Thing-IF's model; a trigger made before it keeps behaving as it
/// did (a state condition that sends its command when it turns true), with its values kept.
struct TriggerMigrationTests {
    @Test func aTriggerFromBeforeBecomesAStatesPredicateThatSendsItsCommand() async throws {
        try await withTemporaryDatabasePath("guild-triggers") { path in
            let migrator = Migrations.migrator(areas: SQLiteStore.areas)
            let old = try DatabaseQueue(path: path)
            try migrator.migrate(old, upTo: "things-5: disabled things")
            try await old.write { db in
                try db.execute(
                    sql: """
                        INSERT INTO thing (thingID, vendorThingID, passwordHash, properties, created, modified)
                        VALUES ('th.1', 'lamp-1', 'hash', CAST('{}' AS BLOB), 10, 10);
                        INSERT INTO thing_trigger (triggerID, thingID, condition, command, enabled, lastValue, creator, created)
                        VALUES ('tr.1', 'th.1', CAST('{"type":"eq","field":"power","value":true}' AS BLOB),
                            CAST('{"actions":[{"turnPower":{"power":true}}],"schema":"SmartLight","schemaVersion":2,"issuer":"user:u1"}' AS BLOB),
                            0, 1, 'u1', 20);
                        """
                )
            }
            try old.close()

            let store = try SQLiteStore(configuration: .init(path: path))
            defer { try? store.close() }
            let triggers = try await store.read { try $0.things.triggers(thingID: "th.1") }
            #expect(
                triggers == [
                    ThingTrigger(
                        triggerID: "tr.1",
                        thingID: "th.1",
                        predicate: .states(condition: ["type": "eq", "field": "power", "value": true], triggersWhen: .conditionFalseToTrue),
                        action: .command(
                            CommandRequest(actions: [["turnPower": ["power": true]]], issuer: .user("u1"), schema: "SmartLight", schemaVersion: 2)
                        ),
                        enabled: false,
                        creator: "u1",
                        created: 20
                    )
                ]
            )
            try await store.pool.read { db in
                // The runner finds due schedules through the partial index.
                let plan = try Row.fetchAll(
                    db,
                    sql:
                        "EXPLAIN QUERY PLAN SELECT triggerID FROM thing_trigger WHERE nextFire IS NOT NULL AND enabled = 1 AND nextFire <= 5 ORDER BY nextFire"
                ).map { $0["detail"] as String }
                #expect(plan.contains { $0.contains("thing_trigger_due") }, "\(plan)")
            }
            #expect(try await store.integrityCheck() == ["ok"])
        }
    }
}
