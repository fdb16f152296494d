import Foundation
import GuildClient
import GuildJSON
import GuildProtocol
import GuildTestSupport
import Testing

/// A thing's life after onboarding through a real guildd (issue 42, item 3): found by its vendorThingID,
/// updated by itself and its owner, disabled (its connection unbound at once, its subscription ended, its
/// token refused, the commands sent meanwhile kept) and enabled again; with GuildClient and with guildctl,
/// whose `thing agent` stops when its thing is disabled.
@Suite(.endToEnd)
struct ThingLifecycleTests {
    /// How `events` ends: the error it throws, or nil if it did not end within 10 s.
    static func ending(of events: AsyncThrowingStream<GuildEvent, any Error>) async throws -> SubscriptionEnd? {
        try await withThrowingTaskGroup(of: SubscriptionEnd?.self) { group in
            group.addTask {
                do {
                    for try await _ in events {}
                    return nil
                } catch let end as SubscriptionEnd {
                    return end
                }
            }
            group.addTask {
                try await Task.sleep(for: .seconds(10))
                return nil
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    @Test func aDisabledThingIsUnboundAtOnceAndItsCommandsWaitForIt() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let daemon = try await RealDaemon.start(scratch)
        defer { daemon.terminate() }
        let fixture = try await ThingFlowTests.Fixture.make(scratch.socket, vendor: "door-9")
        let ownerEvents = try await fixture.owner.subscribe(thingIDs: [fixture.thingID])
        let device = try await GuildClient.connect(path: scratch.socket)
        _ = try await device.call(SessionMethods.Authenticate.self, .init(accessToken: fixture.thingToken))
        let deviceEvents = try await device.subscribe()
        _ = try await ThingFlowTests.next("thingConnected", in: ownerEvents.events)

        // Found by its vendor's id; the thing reports new firmware and the owner hears of it.
        let found = try await fixture.owner.findThing(vendorThingID: "door-9")
        #expect(found.thingID == fixture.thingID && found.online && !found.disabled)
        await #expect(throws: RPCError.self) { _ = try await fixture.owner.findThing(vendorThingID: "door-10") }
        let updated = try await device.updateThing(fixture.thingID, firmwareVersion: "4.2", properties: ["battery": 80])
        #expect(updated.firmwareVersion == "4.2" && updated.thingProperties == ["battery": 80])
        let told = try await ThingFlowTests.next("thingUpdated", in: ownerEvents.events)
        #expect(told.firmwareVersion == "4.2" && told.thingProperties == ["battery": 80] && told.disabled == nil)

        // Disabled: the device's subscription ends at once, without a call of its own, and it is unbound.
        try await fixture.owner.setThingDisabled(fixture.thingID, true)
        let end = try await Self.ending(of: deviceEvents.events)
        guard case .thingDisabled(let lastSeq)? = end else {
            Issue.record("the thing's subscription did not end THING_DISABLED: \(String(describing: end))")
            return
        }
        let disabled = try await ThingFlowTests.next("thingUpdated", in: ownerEvents.events)
        #expect(disabled.disabled == true)
        _ = try await ThingFlowTests.next("thingDisconnected", in: ownerEvents.events)
        let record = try await fixture.owner.thing(fixture.thingID)
        #expect(record.disabled && !record.online)
        #expect(try await device.call(SessionMethods.WhoAmI.self).thingID == nil)
        do {
            _ = try await device.call(SessionMethods.Authenticate.self, .init(accessToken: fixture.thingToken))
            Issue.record("a disabled thing's token authenticated")
        } catch let error as RPCError {
            #expect(error.code == .thingDisabled && error.reason == "THING_DISABLED")
        }
        // Its owner still sends it a command: it waits, pending.
        let commandID = try await fixture.owner.sendCommand(fixture.thingID, fixture.request())
        #expect(try await fixture.owner.command(fixture.thingID, commandID: commandID).commandState == "SENDING")

        // Enabled: the same token binds again, and resuming from the end's lastSeq brings the command.
        try await fixture.owner.setThingDisabled(fixture.thingID, false)
        _ = try await device.call(SessionMethods.Authenticate.self, .init(accessToken: fixture.thingToken))
        let resumed = try await device.subscribe(since: lastSeq)
        let received = try await ThingFlowTests.next("commandReceived", in: resumed.events)
        #expect(received.commandID == commandID)
        #expect(try await Eventually.until { try await fixture.owner.command(fixture.thingID, commandID: commandID).commandState == "DELIVERED" })
        #expect(try await fixture.owner.thing(fixture.thingID).disabled == false)
        await device.close()
        await fixture.owner.close()
    }

    @Test func guildctlFindsUpdatesDisablesAndEnablesAndItsAgentStops() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let daemon = try await RealDaemon.start(scratch)
        defer { daemon.terminate() }
        let socket = scratch.socket
        let fixture = try await ThingFlowTests.Fixture.make(socket, vendor: "lock-3")
        let guildctl = { (arguments: [String], token: String) in
            try await Child.run(Build.guildctl, arguments + ["--socket", socket], environment: ["GUILD_TOKEN": token])
        }
        func json(_ text: String) throws -> [String: Any] {
            try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "\(text)")
        }

        let found = try await guildctl(["thing", "find", "--vendor-thing-id", "lock-3", "--json"], fixture.ownerToken)
        #expect(found.status == 0, "\(found.stderr)")
        #expect(try json(found.stdout)["thingID"] as? String == fixture.thingID)
        let missing = try await guildctl(["thing", "find", "--vendor-thing-id", "lock-4"], fixture.ownerToken)
        #expect(missing.status == 1 && missing.stderr.contains("THING_NOT_FOUND"), "\(missing.stderr)")
        let updated = try await guildctl(
            ["thing", "update", "--thing", fixture.thingID, "--thing-type", "Lock", "--properties", #"{"door":"front"}"#, "--json"],
            fixture.ownerToken
        )
        #expect(updated.status == 0, "\(updated.stderr)")
        let thing = try json(updated.stdout)
        #expect(thing["thingType"] as? String == "Lock" && (thing["thingProperties"] as? [String: String]) == ["door": "front"])
        let empty = try await guildctl(["thing", "update", "--thing", fixture.thingID], fixture.ownerToken)
        #expect(empty.status == 64, "\(empty.stderr)")

        // The thing runs as a guildctl agent; disabling it ends the agent (exit 1, saying why).
        let agent = try await Child(
            Build.guildctl,
            ["thing", "agent", "--thing", fixture.thingID, "--exec", "true", "--socket", socket],
            environment: ["GUILD_TOKEN": fixture.thingToken]
        )
        defer { agent.terminate() }
        #expect(try await Eventually.until { try await fixture.owner.thing(fixture.thingID).online })
        let disabled = try await guildctl(["thing", "disable", "--thing", fixture.thingID], fixture.ownerToken)
        #expect(disabled.status == 0, "\(disabled.stderr)")
        #expect(await agent.wait() == 1)
        #expect(agent.stderr.contains("disabled"), "\(agent.stderr)")
        let record = try json(try await guildctl(["thing", "get", "--thing", fixture.thingID, "--json"], fixture.ownerToken).stdout)
        #expect(record["disabled"] as? Bool == true && record["online"] as? Bool == false)
        let refused = try await guildctl(["thing", "state", "--thing", fixture.thingID], fixture.thingToken)
        #expect(refused.status == 1 && refused.stderr.contains("THING_DISABLED"), "\(refused.stderr)")

        let enabled = try await guildctl(["thing", "enable", "--thing", fixture.thingID], fixture.ownerToken)
        #expect(enabled.status == 0, "\(enabled.stderr)")
        let again = try await guildctl(["thing", "get", "--thing", fixture.thingID, "--json"], fixture.thingToken)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try json(again.stdout)["disabled"] as? Bool == false)
        await fixture.owner.close()
    }
}
