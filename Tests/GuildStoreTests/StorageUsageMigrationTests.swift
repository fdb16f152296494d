import Foundation
import GRDB
import GuildCore
import GuildJSON
import GuildTestSupport
import Testing

@testable import GuildStore

/// `storage-1` on a database that already holds data: its first fill charges every stored body as its
/// triggers would have, so the usage after the upgrade is what it would be had it always been kept.
struct StorageUsageMigrationTests {
    @Test func theFirstFillCountsWhatIsAlreadyStored() async throws {
        let world = try await ThingServiceTests.World()
        defer { world.temp.remove() }
        let alice = try await world.user("alice")
        let note: JSONValue = ["text": .string(String(repeating: "a", count: 300))]
        _ = try await world.objects.create(caller: alice.caller, scope: .user(alice.id), bucket: "notes", body: note, objectID: "n1")
        _ = try await world.objects.create(caller: alice.caller, scope: .app, bucket: "shared", body: note, objectID: "s1")
        _ = try await world.objects.create(caller: world.admin, scope: .app, bucket: "shared", body: note, objectID: "by-admin")
        let (thingID, thing) = try await world.onboard(alice.caller, alice.id)
        _ = try await world.objects.create(caller: thing, scope: .thing(thingID), bucket: "log", body: note, objectID: "t1")
        _ = try await world.things.putState(caller: thing, thingID: thingID, state: ["on": true], timestamp: nil)
        _ = try await world.things.send(caller: alice.caller, thingID: thingID, request: world.request(.user(alice.id)))
        _ = try await world.groups.create(caller: alice.caller, name: "chat", groupID: "chat", type: .public, members: [])
        _ = try await world.groups.sendMessage(caller: alice.caller, groupID: "chat", text: "hello")

        func snapshot(_ store: SQLiteStore) async throws -> [String] {
            try await store.read { tx in
                try tx.storage.storageUsageByArea().map { "\($0.key.rawValue) \($0.value)" }.sorted()
                    + tx.storage.largestStorageOwners(limit: 10).map { "\($0.owner) \($0.bytes)" }
            }
        }
        let kept = try await snapshot(world.temp.store)
        // Alice's two notes and message, the thing's note, state and command; the admin's app object is no one's.
        #expect(kept.count == 4 + 2)
        #expect(kept.contains { $0.hasPrefix("user:\(alice.id) ") } && kept.contains { $0.hasPrefix("thing:\(thingID) ") })
        try world.temp.store.close()

        // The database as it was before `storage-1`, data kept.
        let path = world.temp.directory.appendingPathComponent("db/guild.sqlite").path
        let old = try DatabaseQueue(path: path)
        try await old.write { db in
            for table in ["object", "thing_state", "thing_command", "group_message"] {
                for operation in ["insert", "update", "delete"] { try db.execute(sql: "DROP TRIGGER storage_\(table)_\(operation)") }
            }
            try db.execute(sql: "DROP VIEW storage_recount; DROP TABLE storage_usage")
            try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = 'storage-1: usage per owner and area'")
        }
        try old.close()

        let store = try SQLiteStore(configuration: .init(path: path))
        defer { try? store.close() }
        #expect(try await snapshot(store) == kept)
        #expect(try await store.read { try $0.storage.storageInvariantViolations() } == [])
    }
}
