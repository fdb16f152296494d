import Foundation
import GuildCore
import GuildJSON
import GuildTestSupport
import Testing

/// The bounds on what a thing's commands and triggers store (protocol/things.md) hold the same on every engine,
/// through the domain service as the daemon runs it: 10 trigger firings a rolling second, 1,000 commands
/// pending, and every skipped firing in a `triggerSkipped` event the owner replays.
@Suite(.timeLimit(.minutes(10)))
struct ThingBoundsConformanceTests {
    typealias World = EventRepositoryConformanceTests.World

    @Test(arguments: Engine.available)
    func triggerFiringsAndPendingCommandsAreBoundedAlike(engine: Engine) async throws {
        try await EventRepositoryConformanceTests.withWorld(engine) { world in
            let alice = try await world.user("alice")
            let (thingID, thingCaller, request) = try await world.boundLamp(owner: alice)
            var triggers: [String] = []
            for _ in 0..<20 {
                let trigger = try await world.things.createTrigger(
                    caller: alice.caller,
                    thingID: thingID,
                    condition: ["type": "eq", "field": "on", "value": true],
                    command: request
                )
                triggers.append(trigger.triggerID)
            }
            @Sendable func flip() async throws -> TriggerSkip? {
                _ = try await world.things.putState(caller: thingCaller, thingID: thingID, state: ["on": false], timestamp: nil)
                return try await world.things.putState(caller: thingCaller, thingID: thingID, state: ["on": true], timestamp: nil).skipped
            }
            func pending() async throws -> Int {
                try await world.store.read { try $0.things.pendingCommandCount(thingID: thingID) }
            }

            // 10 fire, 10 are skipped; in the same second all 20; a second later 10 again.
            #expect(try await flip() == TriggerSkip(triggerIDs: Array(triggers[10...]), reason: .firingRate))
            world.clock.advance(milliseconds: 999)
            #expect(try await flip() == TriggerSkip(triggerIDs: triggers, reason: .firingRate))
            world.clock.advance(milliseconds: 1)
            #expect(try await flip() == TriggerSkip(triggerIDs: Array(triggers[10...]), reason: .firingRate))
            #expect(try await pending() == 20)

            // Up to 1,000 pending with command.send, then QUOTA_EXCEEDED; the triggers skip for pending commands.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<980 {
                    group.addTask { _ = try await world.things.send(caller: alice.caller, thingID: thingID, request: request) }
                }
                try await group.waitForAll()
            }
            #expect(try await pending() == 1000)
            await #expect(throws: GuildError(.quotaExceeded, "")) {
                _ = try await world.things.send(caller: alice.caller, thingID: thingID, request: request)
            }
            world.clock.advance(seconds: 2)
            #expect(try await flip() == TriggerSkip(triggerIDs: triggers, reason: .pendingCommands))
            #expect(try await pending() == 1000)

            // The owner replays one triggerSkipped per upload that skipped, with the reason and the limit.
            let skipped = try await world.replay(alice.id).filter { $0.kind == "triggerSkipped" }
                .map(EventRepositoryConformanceTests.members)
            #expect(skipped.map { $0["reason"] as? String } == ["firingRate", "firingRate", "firingRate", "pendingCommands"])
            #expect(skipped.map { $0["limit"] as? Int } == [10, 10, 10, 1000])
            #expect(skipped.map { ($0["triggerIDs"] as? [String])?.count } == [10, 20, 10, 20])
            #expect(try await world.replay(thingID).allSatisfy { $0.kind != "triggerSkipped" })
        }
    }
}
