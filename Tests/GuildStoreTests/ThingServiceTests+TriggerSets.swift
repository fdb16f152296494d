import GuildCore
import GuildJSON
import GuildStore
import GuildTestSupport
import Testing

/// The compiled trigger sets kept per thing (`ThingTriggerSets`, by the thing's trigger revision): an upload
/// evaluates the kept set, and every change to the thing's triggers, made through any service sharing the store
/// (as hosts share a PostgreSQL database), is seen by the next upload; a condition's previous value is its value
/// on the state before the upload.
extension ThingServiceTests {
    @Test func changesMadeThroughAnotherServiceAreSeenByTheNextUpload() async throws {
        let (world, clock, things, alice, thing) = try await Self.aliceWithAThing()
        defer { world.temp.remove() }
        // Another host: the same store, its own kept sets.
        let other = Self.things(world, clock)
        let first = try await Self.triggers(1, things, world, alice, thingID: thing.id)[0]

        _ = try await Self.flip(other, thing)
        #expect(try await Self.commands(world, thing.id).compactMap(\.firedByTriggerID) == [first])
        #expect(other.triggerSets.count == 1)

        // Disabled through the first service: the other's next transition fires nothing.
        try await things.setTrigger(caller: alice.caller, thingID: thing.id, triggerID: first, enabled: false)
        clock.advance(milliseconds: 1_000)
        _ = try await Self.flip(other, thing)
        #expect(try await Self.commands(world, thing.id).count == 1)

        // Enabled again, and a second trigger: both fire.
        try await things.setTrigger(caller: alice.caller, thingID: thing.id, triggerID: first, enabled: true)
        let second = try await Self.triggers(1, things, world, alice, thingID: thing.id)[0]
        clock.advance(milliseconds: 1_000)
        _ = try await Self.flip(other, thing)
        #expect(try await Self.commands(world, thing.id).compactMap(\.firedByTriggerID) == [first, first, second])

        // Patched to watch `off`, then the first deleted: only what the triggers now say fires.
        _ = try await things.patchTrigger(
            caller: alice.caller,
            thingID: thing.id,
            triggerID: second,
            predicate: .states(condition: ["type": "eq", "field": "off", "value": true], triggersWhen: .conditionTrue),
            action: nil,
            title: nil,
            description: nil
        )
        try await things.deleteTrigger(caller: alice.caller, thingID: thing.id, triggerID: first)
        clock.advance(milliseconds: 1_000)
        _ = try await Self.flip(other, thing)
        #expect(try await Self.commands(world, thing.id).count == 3)
        _ = try await other.putState(caller: thing.caller, thingID: thing.id, state: ["off": true], timestamp: nil)
        #expect(try await Self.commands(world, thing.id).compactMap(\.firedByTriggerID) == [first, first, second, second])
    }

    @Test func aConditionsPreviousValueIsItsValueOnTheStateBefore() async throws {
        let (world, clock, things, alice, thing) = try await Self.aliceWithAThing()
        defer { world.temp.remove() }
        func upload(_ on: Bool) async throws {
            clock.advance(milliseconds: 1_000)
            _ = try await things.putState(caller: thing.caller, thingID: thing.id, state: ["on": .bool(on)], timestamp: nil)
        }
        func fired() async throws -> [String] {
            try await Self.commands(world, thing.id).compactMap(\.firedByTriggerID)
        }
        // Made while the latest state already holds: the next upload that holds too is no transition.
        try await upload(true)
        let request = world.request(.user(alice.id))
        let toTrue = try await things.createTrigger(
            caller: alice.caller,
            thingID: thing.id,
            predicate: .states(condition: ["type": "eq", "field": "on", "value": true], triggersWhen: .conditionFalseToTrue),
            action: .command(request)
        ).triggerID
        let changed = try await things.createTrigger(
            caller: alice.caller,
            thingID: thing.id,
            predicate: .states(condition: ["type": "eq", "field": "on", "value": true], triggersWhen: .conditionChanged),
            action: .command(request)
        ).triggerID
        try await upload(true)
        #expect(try await fired() == [])
        try await upload(false)
        #expect(try await fired() == [changed])
        try await upload(true)
        #expect(try await fired() == [changed, toTrue, changed])
        // A disabled trigger misses the transitions it would have fired on, and fires on the next one after.
        try await things.setTrigger(caller: alice.caller, thingID: thing.id, triggerID: toTrue, enabled: false)
        try await upload(false)
        try await things.setTrigger(caller: alice.caller, thingID: thing.id, triggerID: toTrue, enabled: true)
        try await upload(false)
        #expect(try await fired() == [changed, toTrue, changed, changed])
        try await upload(true)
        #expect(try await fired() == [changed, toTrue, changed, changed, toTrue, changed])
    }

    /// The state before an upload is read before the history drops it: a history of one state still sees each
    /// transition once.
    @Test func aHistoryOfOneStateStillHasTheStateBefore() async throws {
        let (world, clock, defaults, alice, thing) = try await Self.aliceWithAThing()
        defer { world.temp.remove() }
        var things = defaults
        things.stateHistory = StateHistoryLimits(count: 1, days: 1)
        let trigger = try await Self.triggers(1, things, world, alice, thingID: thing.id)[0]
        for on in [true, true, false, true, true] {
            clock.advance(milliseconds: 1_000)
            _ = try await things.putState(caller: thing.caller, thingID: thing.id, state: ["on": .bool(on)], timestamp: nil)
        }
        #expect(try await Self.commands(world, thing.id).compactMap(\.firedByTriggerID) == [trigger, trigger])
        let kept = try await things.stateHistory(caller: alice.caller, thingID: thing.id, from: nil, to: nil, limit: nil, paginationKey: nil)
        #expect(kept.states.count == 1)
    }
}
