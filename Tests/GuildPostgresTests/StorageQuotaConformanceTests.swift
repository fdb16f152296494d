import GuildCore
import GuildJSON
import GuildTestSupport
import Testing

/// The per-owner storage quota and the usage behind it hold the same on every engine, through the domain
/// services as the daemon runs them: usage is kept in the writing transaction (cascades included) and matches
/// a recount of what is stored; a write that grows an owner past the quota is `QUOTA_EXCEEDED` with the limit
/// and the usage, and stores nothing; shrinking and deleting give room back.
@Suite(.timeLimit(.minutes(10)))
struct StorageQuotaConformanceTests {
    typealias World = EventRepositoryConformanceTests.World

    static func usage(_ world: World, _ owner: StorageOwner) async throws -> Int64 {
        try await world.store.read { try $0.storage.storageUsage(owner: owner) }
    }

    static func violations(_ world: World) async throws -> [String] {
        try await world.store.read { try $0.storage.storageInvariantViolations() }
    }

    /// The refusal of `write`, which must fail with `quotaExceeded`.
    static func refusal(_ write: () async throws -> Void) async throws -> GuildError {
        do {
            try await write()
        } catch let error as GuildError {
            return error
        }
        Issue.record("the write past the quota was accepted")
        return GuildError(.invalidInput, "accepted")
    }

    @Test(arguments: Engine.available)
    func objectsAreChargedToTheirOwnerAndRefusedPastTheQuota(engine: Engine) async throws {
        try await EventRepositoryConformanceTests.withWorld(engine) { world in
            var objects = world.objects
            objects.storageQuota = StorageQuota(bytes: 4_000)
            let alice = try await world.user("alice")
            let bob = try await world.user("bob")
            let note: JSONValue = ["text": .string(String(repeating: "a", count: 900))]
            for index in 0..<4 {
                _ = try await objects.create(caller: alice.caller, scope: .user(alice.id), bucket: "notes", body: note, objectID: "n\(index)")
            }
            let four = try await Self.usage(world, .user(alice.id))
            let one = four / 4
            #expect(one > 900 && four <= 4_000)

            // The fifth would pass the quota: refused with the limit and the usage, and nothing is stored.
            let refused = try await Self.refusal {
                _ = try await objects.create(caller: alice.caller, scope: .user(alice.id), bucket: "notes", body: note, objectID: "n4")
            }
            #expect(refused.code == .quotaExceeded)
            #expect(refused.details == ["limit": 4_000, "usage": four])
            #expect(try await Self.usage(world, .user(alice.id)) == four)
            await #expect(throws: GuildError(.objectNotFound, "")) {
                _ = try await objects.get(caller: alice.caller, scope: .user(alice.id), bucket: "notes", objectID: "n4")
            }

            // Others are not held up: Bob's object in the app scope is his.
            _ = try await objects.create(caller: bob.caller, scope: .app, bucket: "shared", body: note, objectID: "b0")
            #expect(try await Self.usage(world, .user(bob.id)) == one)

            // An update that grows past the quota is refused; one that shrinks passes and gives room back.
            let grown: JSONValue = ["text": .string(String(repeating: "b", count: 1_900))]
            let grownRefusal = try await Self.refusal {
                _ = try await objects.update(
                    caller: alice.caller,
                    scope: .user(alice.id),
                    bucket: "notes",
                    objectID: "n0",
                    change: .replace(grown),
                    ifVersion: nil
                )
            }
            #expect(grownRefusal.code == .quotaExceeded)
            #expect(try await objects.get(caller: alice.caller, scope: .user(alice.id), bucket: "notes", objectID: "n0").version == 1)
            _ = try await objects.update(
                caller: alice.caller,
                scope: .user(alice.id),
                bucket: "notes",
                objectID: "n0",
                change: .replace(["text": "s"]),
                ifVersion: nil
            )
            let shrunk = try await Self.usage(world, .user(alice.id))
            #expect(shrunk < four - 800)
            _ = try await objects.create(caller: alice.caller, scope: .user(alice.id), bucket: "notes", body: note, objectID: "n4")
            #expect(try await Self.usage(world, .user(alice.id)) == shrunk + one)

            // An object deleted, a bucket dropped and a user deleted give back exactly what they held.
            try await objects.delete(caller: alice.caller, scope: .user(alice.id), bucket: "notes", objectID: "n4", ifVersion: nil)
            #expect(try await Self.usage(world, .user(alice.id)) == shrunk)
            _ = try await objects.create(caller: alice.caller, scope: .app, bucket: "shared", body: note, objectID: "a0")
            try await objects.deleteBucket(caller: alice.caller, scope: .user(alice.id), bucket: "notes")
            #expect(try await Self.usage(world, .user(alice.id)) == one)
            #expect(try await Self.violations(world) == [])
            _ = try await world.users.delete(caller: bob.caller, userID: bob.id)
            // Bob's scope went with him; his object in the app scope stays, still his.
            #expect(try await Self.usage(world, .user(bob.id)) == one)
            #expect(try await Self.violations(world) == [])
            let areas = try await world.store.read { try $0.storage.storageUsageByArea() }
            #expect(areas == [.objects: 2 * one])
        }
    }

    @Test(arguments: Engine.available)
    func thingsAreChargedForStatesAndCommandsAndFiringsPastTheQuotaAreSkipped(engine: Engine) async throws {
        try await EventRepositoryConformanceTests.withWorld(engine) { world in
            var things = world.things
            things.storageQuota = StorageQuota(bytes: 3_000)
            let alice = try await world.user("alice")
            let (thingID, thingCaller, request) = try await world.boundLamp(owner: alice)
            let trigger = try await things.createTrigger(
                caller: alice.caller,
                thingID: thingID,
                condition: ["type": "eq", "field": "on", "value": true],
                command: request
            )

            // States count, and are never refused by the quota (their history bounds them).
            let padding = JSONValue.string(String(repeating: "p", count: 600))
            for _ in 0..<6 {
                _ = try await things.putState(caller: thingCaller, thingID: thingID, state: ["on": false, "pad": padding], timestamp: nil)
            }
            let states = try await Self.usage(world, .thing(thingID))
            #expect(states > 3_000)
            #expect(try await world.store.read { try $0.storage.storageUsageByArea() }[.states] == states)

            // A command past the quota is refused and stores nothing.
            let refused = try await Self.refusal { _ = try await things.send(caller: alice.caller, thingID: thingID, request: request) }
            #expect(refused.code == .quotaExceeded)
            #expect(refused.details == ["limit": 3_000, "usage": states])
            #expect(try await world.store.read { try $0.things.pendingCommandCount(thingID: thingID) } == 0)

            // A trigger firing past it is skipped, for the quota, and recorded.
            let skip = try await things.putState(caller: thingCaller, thingID: thingID, state: ["on": true], timestamp: nil).skipped
            #expect(skip == TriggerSkip(triggerIDs: [trigger.triggerID], reason: .storageQuota, quota: things.storageQuota))
            #expect(skip?.limit == 3_000)

            // With room again (a larger quota), commands and their results count.
            things.storageQuota = StorageQuota(bytes: 1 << 20)
            let before = try await Self.usage(world, .thing(thingID))
            let command = try await things.send(caller: alice.caller, thingID: thingID, request: request)
            let sent = try await Self.usage(world, .thing(thingID))
            #expect(sent > before)
            _ = try await things.putResults(
                caller: thingCaller,
                thingID: thingID,
                commandID: command.commandID,
                results: [["turnPower": ["succeeded": true]]]
            )
            #expect(try await Self.usage(world, .thing(thingID)) > sent)
            #expect(try await Self.violations(world) == [])

            // Deleting the thing gives it all back (its states and commands go by cascade).
            try await things.delete(caller: alice.caller, thingID: thingID)
            #expect(try await Self.usage(world, .thing(thingID)) == 0)
            #expect(try await Self.violations(world) == [])
        }
    }

    @Test(arguments: Engine.available)
    func groupMessagesAreChargedToTheirSender(engine: Engine) async throws {
        try await EventRepositoryConformanceTests.withWorld(engine) { world in
            let alice = try await world.user("alice")
            _ = try await world.groups.create(caller: alice.caller, name: "work", groupID: "work", type: .public, members: [])
            _ = try await world.groups.sendMessage(caller: alice.caller, groupID: "work", text: "hello")
            let one = try await Self.usage(world, .user(alice.id))
            #expect(one > 5)
            _ = try await world.groups.sendMessage(caller: alice.caller, groupID: "work", text: "hello")
            #expect(try await Self.usage(world, .user(alice.id)) == 2 * one)
            #expect(try await world.store.read { try $0.storage.storageUsageByArea() } == [.messages: 2 * one])
            try await world.groups.delete(caller: alice.caller, groupID: "work")
            #expect(try await Self.usage(world, .user(alice.id)) == 0)
            #expect(try await Self.violations(world) == [])
        }
    }
}
