import GuildCore
import GuildJSON
import GuildStore
import GuildTestSupport
import Testing

/// A thing's life after onboarding (issue 42, item 3; data-things-messages.md §4.3): found by its vendorThingID,
/// updated, disabled and enabled, each with who may do it and the `thingUpdated` events it leaves.
extension ThingServiceTests {
    /// The bodies of the `thingUpdated` events `principal` may replay, oldest first.
    static func updates(_ world: World, _ principal: String) async throws -> [[String: JSONValue]] {
        try await world.temp.store.replay(userID: principal, installationID: nil, after: 0, through: Int64.max, limit: 10_000)
            .filter { $0.kind == "thingUpdated" }
            .map { event in try event.json.withUnsafeBytes { try JSONValue(parsing: $0) }.objectValue ?? [:] }
    }

    @Test func findingAThingByItsVendorIDIsForItsOwnersTheThingAndAdmins() async throws {
        let world = try await World()
        defer { world.temp.remove() }
        let alice = try await world.user("alice")
        let stranger = try await world.user("stranger")
        let thing = try await world.onboard(alice.caller, alice.id, vendor: "lamp-7")
        #expect(try await world.things.find(caller: alice.caller, vendorThingID: "lamp-7").thingID == thing.id)
        #expect(try await world.things.find(caller: thing.caller, vendorThingID: "lamp-7").thingID == thing.id)
        #expect(try await world.things.find(caller: world.admin, vendorThingID: "lamp-7").properties == ["room": "hall"])
        #expect(await self.code { _ = try await world.things.find(caller: stranger.caller, vendorThingID: "lamp-7") } == .permissionDenied)
        #expect(await self.code { _ = try await world.things.find(caller: world.admin, vendorThingID: "lamp-8") } == .thingNotFound)
        #expect(await self.code { _ = try await world.things.find(caller: world.admin, vendorThingID: "no spaces") } == .invalidInput)
    }

    @Test func anUpdateMergesPropertiesAndTellsOwnersAndTheThingWhatChanged() async throws {
        let world = try await World()
        defer { world.temp.remove() }
        let alice = try await world.user("alice")
        let stranger = try await world.user("stranger")
        let thing = try await world.onboard(alice.caller, alice.id)
        let before = try await world.things.get(caller: alice.caller, thingID: thing.id)

        // The thing reports its new firmware; an owner moves it and drops nothing else.
        let updated = try await world.things.update(caller: thing.caller, thingID: thing.id, thingType: nil, firmwareVersion: "2.1", properties: nil)
        #expect(updated.firmwareVersion == "2.1" && updated.thingType == "LED" && updated.properties == ["room": "hall"])
        let moved = try await world.things.update(
            caller: alice.caller,
            thingID: thing.id,
            thingType: "LED-2",
            firmwareVersion: nil,
            properties: ["room": .null, "floor": 2, "_hidden": true]
        )
        #expect(moved.thingType == "LED-2" && moved.firmwareVersion == "2.1")
        #expect(moved.properties == ["floor": 2])
        #expect(moved.modified >= before.modified)
        #expect(try await world.things.get(caller: world.admin, thingID: thing.id) == moved)

        // The same values again change nothing and tell no one.
        _ = try await world.things.update(
            caller: alice.caller,
            thingID: thing.id,
            thingType: "LED-2",
            firmwareVersion: "2.1",
            properties: ["floor": 2]
        )
        let seen = try await Self.updates(world, alice.id)
        #expect(seen.count == 2)
        #expect(seen.first?["firmwareVersion"] == "2.1" && seen.first?["thingType"] == nil)
        #expect(seen.last?["thingType"] == "LED-2" && seen.last?["thingProperties"] == ["floor": 2] && seen.last?["firmwareVersion"] == nil)
        #expect(seen.allSatisfy { $0["thingID"] == .string(thing.id) && $0["kind"] == "thingUpdated" })
        #expect(try await Self.updates(world, thing.id).count == 2)
        #expect(try await Self.updates(world, stranger.id).isEmpty)

        // Who and what: strangers are refused, bad values are named, an empty update is refused.
        func refusal(_ caller: Caller, _ thingID: String, type: String? = nil, properties: [String: JSONValue]? = nil) async -> GuildError.Code? {
            await self.code {
                _ = try await world.things.update(caller: caller, thingID: thingID, thingType: type, firmwareVersion: nil, properties: properties)
            }
        }
        #expect(await refusal(stranger.caller, thing.id, type: "X") == .permissionDenied)
        #expect(await refusal(alice.caller, thing.id, type: "a b") == .invalidInput)
        #expect(await refusal(alice.caller, thing.id) == .invalidInput)
        #expect(await refusal(alice.caller, thing.id, properties: ["blob": .string(String(repeating: "x", count: 64 * 1024))]) == .invalidInput)
        #expect(await refusal(world.admin, "th.none", type: "X") == .thingNotFound)
        #expect(try await world.things.get(caller: alice.caller, thingID: thing.id) == moved)
        #expect(try await world.temp.store.read { try $0.things.thingInvariantViolations() }.isEmpty)
    }

    @Test func aDisabledThingCannotAuthenticateOrBeOnboardedAndItsCommandsWait() async throws {
        let world = try await World()
        defer { world.temp.remove() }
        let alice = try await world.user("alice")
        let stranger = try await world.user("stranger")
        let (thing, token) = try await world.things.onboard(
            caller: alice.caller,
            vendorThingID: "door-1",
            password: "pw",
            owner: .user(alice.id),
            thingType: nil,
            firmwareVersion: nil,
            properties: nil
        )
        let bound = try await world.users.resolve(accessToken: token.text)
        let thingCaller = Caller(peer: .init(uid: 1000, gid: 1000, pid: 2), isAdmin: false, session: bound)
        let generation = world.users.generations.current(thing.thingID)

        // Only owners and admins switch it; the thing itself may not.
        #expect(
            await self.code { try await world.things.setDisabled(caller: thingCaller, thingID: thing.thingID, disabled: true) } == .permissionDenied
        )
        #expect(
            await self.code { try await world.things.setDisabled(caller: stranger.caller, thingID: thing.thingID, disabled: true) }
                == .permissionDenied
        )
        #expect(try await world.things.setDisabled(caller: alice.caller, thingID: thing.thingID, disabled: true))
        #expect(try await world.things.setDisabled(caller: alice.caller, thingID: thing.thingID, disabled: true) == false)
        #expect(try await world.things.get(caller: alice.caller, thingID: thing.thingID).disabled)

        // Its token authenticates nothing, a bound connection's next check fails, onboarding is refused (after the
        // password check: a wrong password still says only that).
        #expect(await self.code { _ = try await world.users.resolve(accessToken: token.text) } == .thingDisabled)
        #expect(world.users.generations.current(thing.thingID) != generation)
        #expect(await self.code { _ = try await world.users.revalidate(bound, checkedAt: generation) } == .thingDisabled)
        let onboardAgain = { (password: String) in
            _ = try await world.things.onboard(
                caller: alice.caller,
                vendorThingID: "door-1",
                password: password,
                owner: .user(alice.id),
                thingType: nil,
                firmwareVersion: nil,
                properties: nil
            )
        }
        #expect(await self.code { try await onboardAgain("pw") } == .thingDisabled)
        #expect(await self.code { try await onboardAgain("wrong") } == .invalidCredentials)

        // Owners still read it and send it commands; those wait, pending.
        let command = try await world.things.send(caller: alice.caller, thingID: thing.thingID, request: world.request(.user(alice.id)))
        #expect(try await world.things.command(caller: alice.caller, thingID: thing.thingID, commandID: command.commandID).state == .sending)

        // Enabled again, the same token works and the command is there to fetch.
        #expect(try await world.things.setDisabled(caller: world.admin, thingID: thing.thingID, disabled: false))
        let again = try await world.users.resolve(accessToken: token.text)
        #expect(again.isThing && again.user.id == thing.thingID)
        let waiting = try await world.things.commands(caller: thingCaller, thingID: thing.thingID, limit: nil, paginationKey: nil)
        #expect(waiting.commands.map(\.commandID) == [command.commandID])
        #expect(try await world.things.get(caller: alice.caller, thingID: thing.thingID).disabled == false)

        let seen = try await Self.updates(world, alice.id)
        #expect(seen.map { $0["disabled"] } == [true, false])
        #expect(try await Self.updates(world, thing.thingID).count == 2)
        #expect(try await world.temp.store.read { try $0.things.thingInvariantViolations() }.isEmpty)
    }
}
