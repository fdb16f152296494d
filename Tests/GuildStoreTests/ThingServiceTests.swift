import Foundation
import GuildCore
import GuildJSON
import GuildStore
import GuildTestSupport
import Testing

/// Kii Thing-IF's things (protocol/things.md) through the real store, with explicit callers: the reference's
/// acceptance items 13-17 (the sticky password, owners and issuers, the first state, results in order, the
/// pseudo-user rule for result pushes), live group ownership, triggers, deletion and bad input.
struct ThingServiceTests {
    struct World {
        let temp: TemporaryStore
        let users: UserService
        let groups: GroupService
        let objects: ObjectService
        let things: ThingService

        init() async throws {
            self.temp = try TemporaryStore()
            self.users = try await makeService(self.temp.store)
            self.groups = GroupService(
                store: self.temp.store,
                deletionSteps: [ObjectService.removeDeletedGroup, ThingService.removeDeletedGroup]
            )
            self.objects = ObjectService(store: self.temp.store)
            self.things = ThingService(store: self.temp.store, hasher: PasswordHasher(logN: 4), generations: self.users.generations)
        }

        func user(_ name: String) async throws -> (caller: Caller, id: String) {
            let (user, session) = try await self.users.register(identity: .init(username: name), password: "pass", displayName: name, fields: nil)
            return (caller(session, user), user.id)
        }

        func pseudo() async throws -> (caller: Caller, id: String) {
            let (user, session) = try await self.users.registerPseudo(displayName: nil, fields: nil)
            return (caller(session, user), user.id)
        }

        var admin: Caller { Caller(peer: .init(uid: 0, gid: 0, pid: 1), isAdmin: true) }

        /// Onboards a thing for `owner` and returns its id and the caller of a connection bound to it.
        func onboard(
            _ owner: Caller,
            _ ownerID: String,
            vendor: String = "lamp-1",
            password: String = "pw"
        )
            async throws -> (id: String, caller: Caller)
        {
            let (thing, token) = try await self.things.onboard(
                caller: owner,
                vendorThingID: vendor,
                password: password,
                owner: .user(ownerID),
                thingType: "LED",
                firmwareVersion: nil,
                properties: ["room": "hall"]
            )
            let session = try await self.users.resolve(accessToken: token.text)
            return (thing.thingID, Caller(peer: .init(uid: 1000, gid: 1000, pid: 2), isAdmin: false, session: session))
        }

        func request(_ issuer: ThingOwner, _ actions: [JSONValue] = [["turnPower": ["power": true]]]) -> CommandRequest {
            CommandRequest(actions: actions, issuer: issuer, schema: "SmartLight", schemaVersion: 1)
        }

        /// The kinds of the events `userID` (on a connection bound to `installationID`) may replay.
        func replayedKinds(_ userID: String, installationID: String? = nil) async throws -> [String] {
            try await self.temp.store.replay(userID: userID, installationID: installationID, after: 0, through: Int64.max, limit: 10_000)
                .map(\.kind)
        }
    }

    func code(_ body: () async throws -> Void) async -> GuildError.Code? {
        await guildErrorCode(body)
    }

    // MARK: - Onboarding (item 13)

    @Test func theFirstPasswordSticksAndOnboardingAgainAddsTheOwner() async throws {
        let world = try await World()
        defer { world.temp.remove() }
        let alice = try await world.user("alice")
        let bob = try await world.user("bob")
        let thing = try await world.onboard(alice.caller, alice.id)
        #expect(thing.id.hasPrefix("th."))
        #expect(thing.caller.thingID == thing.id && thing.caller.session == nil)
        // Bob onboards the same vendorThingID with the password: same thing, one more owner.
        let again = try await world.onboard(bob.caller, bob.id)
        #expect(again.id == thing.id)
        #expect(try await world.things.owners(caller: alice.caller, thingID: thing.id) == [.user(alice.id), .user(bob.id)])
        // Another password fails without saying which part was wrong.
        let carol = try await world.user("carol")
        await #expect(throws: GuildError(.invalidCredentials, "")) { _ = try await world.onboard(carol.caller, carol.id, password: "other") }
        #expect(try await world.things.owners(caller: alice.caller, thingID: thing.id).count == 2)
        // Only an admin changes the password; then the new one is the one that works.
        #expect(await self.code { try await world.things.setPassword(caller: alice.caller, thingID: thing.id, password: "new") } == .permissionDenied)
        try await world.things.setPassword(caller: world.admin, thingID: thing.id, password: "new")
        #expect(await self.code { _ = try await world.onboard(carol.caller, carol.id) } == .invalidCredentials)
        #expect(try await world.onboard(carol.caller, carol.id, password: "new").id == thing.id)
    }

    @Test func onboardingChecksItsInputAndWhoActsForTheOwner() async throws {
        let world = try await World()
        defer { world.temp.remove() }
        let alice = try await world.user("alice")
        let bob = try await world.user("bob")
        #expect(await self.code { _ = try await world.onboard(alice.caller, alice.id, vendor: "bad id!") } == .invalidInput)
        #expect(await self.code { _ = try await world.onboard(alice.caller, alice.id, vendor: String(repeating: "a", count: 201)) } == .invalidInput)
        #expect(await self.code { _ = try await world.onboard(alice.caller, alice.id, password: "") } == .invalidInput)
        #expect(await self.code { _ = try await world.onboard(alice.caller, alice.id, password: "tab\there") } == .invalidInput)
        // Alice may not make Bob an owner; nothing was registered.
        #expect(await self.code { _ = try await world.onboard(alice.caller, bob.id) } == .permissionDenied)
        #expect(try await world.things.ownedThings(caller: bob.caller, userID: nil).isEmpty)
        #expect(await self.code { _ = try await world.onboard(world.admin, "nobody") } == .userNotFound)
    }

    // MARK: - Owners and commands (item 14)

    @Test func issuersMustBeOwnersAndGroupMembersActForTheirGroupAtOnce() async throws {
        let world = try await World()
        defer { world.temp.remove() }
        let alice = try await world.user("alice")
        let member = try await world.user("member")
        let stranger = try await world.user("stranger")
        let thing = try await world.onboard(alice.caller, alice.id)
        _ = try await world.groups.create(caller: alice.caller, name: "Home", groupID: "home", type: .basic, members: [.init(userID: member.id)])
        // A stranger is refused reading and sending, even naming themself as issuer.
        #expect(await self.code { _ = try await world.things.get(caller: stranger.caller, thingID: thing.id) } == .permissionDenied)
        #expect(
            await self.code {
                _ = try await world.things.send(caller: stranger.caller, thingID: thing.id, request: world.request(.user(stranger.id)))
            }
                == .permissionDenied
        )
        // The group becomes an owner (added by a member); the member sends as the group.
        try await world.things.addOwner(caller: member.caller, thingID: thing.id, owner: .group("home"), password: nil)
        #expect(
            await self.code { try await world.things.addOwner(caller: alice.caller, thingID: thing.id, owner: .group("home"), password: nil) }
                == .thingOwnershipAlreadyExists
        )
        let sent = try await world.things.send(caller: member.caller, thingID: thing.id, request: world.request(.group("home")))
        #expect(sent.state == .sending && sent.senderUserID == member.id)
        #expect(try await world.things.ownedThings(caller: member.caller, userID: nil).map(\.thingID) == [thing.id])
        // The member may not send as a user owner, only as themself or their group.
        #expect(
            await self.code { _ = try await world.things.send(caller: member.caller, thingID: thing.id, request: world.request(.user(alice.id))) }
                == .permissionDenied
        )
        // Leaving the group: refused at once, and the thing is no longer theirs.
        _ = try await world.groups.removeMembers(caller: alice.caller, groupID: "home", userIDs: [member.id])
        #expect(
            await self.code { _ = try await world.things.send(caller: member.caller, thingID: thing.id, request: world.request(.group("home"))) }
                == .permissionDenied
        )
        #expect(await self.code { _ = try await world.things.get(caller: member.caller, thingID: thing.id) } == .permissionDenied)
        #expect(try await world.things.ownedThings(caller: member.caller, userID: nil).isEmpty)
        // An issuer that is not an owner is refused even for an owner caller.
        #expect(
            await self.code { _ = try await world.things.send(caller: alice.caller, thingID: thing.id, request: world.request(.user(stranger.id))) }
                == .permissionDenied
        )
    }

    @Test func resultsKeepTheirOrderAndDecideTheState() async throws {
        let world = try await World()
        defer { world.temp.remove() }
        let alice = try await world.user("alice")
        let thing = try await world.onboard(alice.caller, alice.id)
        let actions: [JSONValue] = [["turnPower": ["power": true]], ["setBrightness": ["brightness": 80]], ["setColor": ["rgb": [1, 2, 3]]]]
        let command = try await world.things.send(caller: alice.caller, thingID: thing.id, request: world.request(.user(alice.id), actions))
        let results: [JSONValue] = [
            ["turnPower": ["succeeded": true]],
            ["setBrightness": ["succeeded": false, "errorMessage": "too bright", "data": ["max": 60]]],
            ["setColor": ["succeeded": true, "data": "ok"]],
        ]
        // Only the thing posts; a wrong count or order writes nothing.
        #expect(
            await self.code {
                _ = try await world.things.putResults(caller: alice.caller, thingID: thing.id, commandID: command.commandID, results: results)
            }
                == .permissionDenied
        )
        #expect(
            await self.code {
                _ = try await world.things.putResults(
                    caller: thing.caller,
                    thingID: thing.id,
                    commandID: command.commandID,
                    results: Array(results.reversed())
                )
            } == .invalidInput
        )
        #expect(
            await self.code {
                _ = try await world.things.putResults(caller: thing.caller, thingID: thing.id, commandID: command.commandID, results: [results[0]])
            } == .invalidInput
        )
        #expect(try await world.things.command(caller: alice.caller, thingID: thing.id, commandID: command.commandID).state == .sending)
        let state = try await world.things.putResults(caller: thing.caller, thingID: thing.id, commandID: command.commandID, results: results)
        #expect(state == .incomplete)
        let read = try await world.things.command(caller: alice.caller, thingID: thing.id, commandID: command.commandID)
        #expect(read.actionResults == results)
        #expect(read.request.actions == actions)
        #expect(
            await self.code {
                _ = try await world.things.putResults(caller: thing.caller, thingID: thing.id, commandID: command.commandID, results: results)
            }
                == .commandAlreadyDone
        )
        // All succeeded: DONE.
        let second = try await world.things.send(caller: alice.caller, thingID: thing.id, request: world.request(.user(alice.id)))
        #expect(
            try await world.things.putResults(
                caller: thing.caller,
                thingID: thing.id,
                commandID: second.commandID,
                results: [["turnPower": ["succeeded": true]]]
            ) == .done
        )
        // Newest first, paged.
        let page = try await world.things.commands(caller: thing.caller, thingID: thing.id, limit: 1, paginationKey: nil)
        #expect(page.commands.map(\.commandID) == [second.commandID])
        let rest = try await world.things.commands(caller: thing.caller, thingID: thing.id, limit: 1, paginationKey: page.nextPaginationKey)
        #expect(rest.commands.map(\.commandID) == [command.commandID] && rest.nextPaginationKey == nil)
    }

    @Test func actionsThatAreNotSingleKeyObjectsAreRefused() async throws {
        let world = try await World()
        defer { world.temp.remove() }
        let alice = try await world.user("alice")
        let thing = try await world.onboard(alice.caller, alice.id)
        let malformed: [[JSONValue]] = [[], ["turnPower"], [["a": 1, "b": 2]], [[:]], [["": 1]], [[1, 2]]]
        for actions in malformed {
            #expect(
                await self.code {
                    _ = try await world.things.send(caller: alice.caller, thingID: thing.id, request: world.request(.user(alice.id), actions))
                }
                    == .invalidInput,
                "\(actions)"
            )
        }
        #expect(try await world.things.commands(caller: alice.caller, thingID: thing.id, limit: nil, paginationKey: nil).commands.isEmpty)
        #expect(
            await self.code { _ = try await world.things.send(caller: alice.caller, thingID: "th.none", request: world.request(.user(alice.id))) }
                == .thingNotFound
        )
    }

    // MARK: - Result pushes (item 17)

    @Test func resultsGoToEveryInstallationOfANormalUserButOnlyTheSendingOneOfAPseudoUser() async throws {
        let world = try await World()
        defer { world.temp.remove() }
        let alice = try await world.user("alice")
        let pseudo = try await world.pseudo()
        let thing = try await world.onboard(alice.caller, alice.id)
        try await world.things.addOwner(caller: pseudo.caller, thingID: thing.id, owner: .user(pseudo.id), password: nil)
        let phone = try await world.things.registerInstallation(caller: alice.caller, deviceType: "ANDROID", registrationID: "a1", development: false)
        let tablet = try await world.things.registerInstallation(caller: alice.caller, deviceType: "IOS", registrationID: "a2", development: false)
        #expect(
            try await world.things.registerInstallation(caller: alice.caller, deviceType: "ANDROID", registrationID: "a1", development: false)
                .installationID == phone.installationID
        )
        var pseudoCaller = pseudo.caller
        let sending = try await world.things.registerInstallation(
            caller: pseudoCaller,
            deviceType: "ANDROID",
            registrationID: "p1",
            development: false
        )
        let other = try await world.things.registerInstallation(caller: pseudoCaller, deviceType: "ANDROID", registrationID: "p2", development: false)
        pseudoCaller.installationID = sending.installationID

        var aliceCaller = alice.caller
        aliceCaller.installationID = phone.installationID
        let fromAlice = try await world.things.send(caller: aliceCaller, thingID: thing.id, request: world.request(.user(alice.id)))
        let fromPseudo = try await world.things.send(caller: pseudoCaller, thingID: thing.id, request: world.request(.user(pseudo.id)))
        for command in [fromAlice, fromPseudo] {
            _ = try await world.things.putResults(
                caller: thing.caller,
                thingID: thing.id,
                commandID: command.commandID,
                results: [["turnPower": ["succeeded": true]]]
            )
        }
        // Alice: both installations; with none bound, nothing.
        #expect(try await world.replayedKinds(alice.id, installationID: phone.installationID).filter { $0 == "commandResult" }.count == 1)
        #expect(try await world.replayedKinds(alice.id, installationID: tablet.installationID).filter { $0 == "commandResult" }.count == 1)
        #expect(try await world.replayedKinds(alice.id).contains("commandResult") == false)
        // The pseudo user: only the installation it sent from.
        #expect(try await world.replayedKinds(pseudo.id, installationID: sending.installationID).filter { $0 == "commandResult" }.count == 1)
        #expect(try await world.replayedKinds(pseudo.id, installationID: other.installationID).contains("commandResult") == false)
        // The thing received both commands; owners did not.
        #expect(try await world.replayedKinds(thing.id).filter { $0 == "commandReceived" }.count == 2)
        #expect(try await world.replayedKinds(alice.id, installationID: phone.installationID).contains("commandReceived") == false)
    }

    // MARK: - States (item 15)

    @Test func theFirstStateIsCreatedAndLargeStatesAreRefused() async throws {
        let world = try await World()
        defer { world.temp.remove() }
        let alice = try await world.user("alice")
        let thing = try await world.onboard(alice.caller, alice.id)
        #expect(await self.code { _ = try await world.things.latestState(caller: alice.caller, thingID: thing.id) } == .stateNotFound)
        #expect(
            await self.code {
                _ = try await world.things.stateHistory(caller: alice.caller, thingID: thing.id, from: nil, to: nil, limit: nil, paginationKey: nil)
            }
                == .stateHistoryNotAvailable
        )
        #expect(try await world.things.putState(caller: thing.caller, thingID: thing.id, state: ["power": true], timestamp: 1000).created)
        #expect(try await world.things.putState(caller: alice.caller, thingID: thing.id, state: ["power": false], timestamp: 2000).created == false)
        let big: [String: JSONValue] = ["blob": .string(String(repeating: "x", count: 10_300))]
        #expect(
            await self.code { _ = try await world.things.putState(caller: thing.caller, thingID: thing.id, state: big, timestamp: nil) }
                == .stateTooLarge
        )
        #expect(try await world.things.latestState(caller: thing.caller, thingID: thing.id) == ThingState(state: ["power": false], timestamp: 2000))
        for index in 0..<5 {
            _ = try await world.things.putState(
                caller: thing.caller,
                thingID: thing.id,
                state: ["n": .int(Int64(index))],
                timestamp: 3000 + Int64(index)
            )
        }
        var times: [Int64] = []
        var key: String?
        repeat {
            let page = try await world.things.stateHistory(
                caller: alice.caller,
                thingID: thing.id,
                from: 1500,
                to: 3003,
                limit: 2,
                paginationKey: key
            )
            times += page.states.map(\.timestamp)
            key = page.nextPaginationKey
        } while key != nil
        #expect(times == [2000, 3000, 3001, 3002, 3003])
        let stranger = try await world.user("stranger")
        #expect(
            await self.code { _ = try await world.things.putState(caller: stranger.caller, thingID: thing.id, state: [:], timestamp: nil) }
                == .permissionDenied
        )
    }

    // MARK: - Triggers

    @Test func triggersFireOncePerFalseToTrueTransitionAndNeverOnRestart() async throws {
        let world = try await World()
        defer { world.temp.remove() }
        let alice = try await world.user("alice")
        let thing = try await world.onboard(alice.caller, alice.id)
        let condition: JSONValue = ["type": "range", "field": "temperature", "lowerLimit": 30, "lowerIncluded": false]
        let trigger = try await world.things.createTrigger(
            caller: alice.caller,
            thingID: thing.id,
            condition: condition,
            command: world.request(.user(alice.id), [["turnFan": ["on": true]]])
        )
        func fired() async throws -> [ThingCommand] {
            try await world.things.commands(caller: alice.caller, thingID: thing.id, limit: nil, paginationKey: nil).commands
                .filter { $0.firedByTriggerID == trigger.triggerID }
        }
        for temperature in [20, 31, 35, 40] {
            _ = try await world.things.putState(
                caller: thing.caller,
                thingID: thing.id,
                state: ["temperature": .int(Int64(temperature))],
                timestamp: nil
            )
        }
        #expect(try await fired().count == 1)
        // A restart (a new service on the same store) does not fire again on the same true state.
        let restarted = ThingService(store: world.temp.store, hasher: PasswordHasher(logN: 4), generations: world.users.generations)
        _ = try await restarted.putState(caller: thing.caller, thingID: thing.id, state: ["temperature": 41], timestamp: nil)
        #expect(try await fired().count == 1)
        // Down and up again: a second command.
        _ = try await world.things.putState(caller: thing.caller, thingID: thing.id, state: ["temperature": 10], timestamp: nil)
        _ = try await world.things.putState(caller: thing.caller, thingID: thing.id, state: ["temperature": 50], timestamp: nil)
        #expect(try await fired().count == 2)
        // Disabled: it follows the condition but sends nothing.
        try await world.things.setTrigger(caller: alice.caller, thingID: thing.id, triggerID: trigger.triggerID, enabled: false)
        _ = try await world.things.putState(caller: thing.caller, thingID: thing.id, state: ["temperature": 10], timestamp: nil)
        _ = try await world.things.putState(caller: thing.caller, thingID: thing.id, state: ["temperature": 50], timestamp: nil)
        #expect(try await fired().count == 2)
        #expect(try await fired().allSatisfy { $0.request.actions == [["turnFan": ["on": true]]] })
        #expect(
            await self.code {
                _ = try await world.things.createTrigger(
                    caller: alice.caller,
                    thingID: thing.id,
                    condition: ["type": "geobox"],
                    command: world.request(.user(alice.id))
                )
            } == .queryNotSupported
        )
        try await world.things.deleteTrigger(caller: alice.caller, thingID: thing.id, triggerID: trigger.triggerID)
        #expect(try await world.things.triggers(caller: alice.caller, thingID: thing.id).isEmpty)
    }

    // MARK: - Thing scopes and deletion

    @Test func aThingKeepsDataInItsScopeAndDeletionTakesEverything() async throws {
        let world = try await World()
        defer { world.temp.remove() }
        let alice = try await world.user("alice")
        let stranger = try await world.user("stranger")
        let thing = try await world.onboard(alice.caller, alice.id)
        let scope = ObjectScope.thing(thing.id)
        let log = try await world.objects.create(caller: thing.caller, scope: scope, bucket: "log", body: ["t": 1], objectID: "l1")
        #expect(try await world.objects.get(caller: alice.caller, scope: scope, bucket: "log", objectID: log.objectID).fields["t"] == 1)
        #expect(
            await self.code { _ = try await world.objects.get(caller: stranger.caller, scope: scope, bucket: "log", objectID: "l1") }
                == .objectNotFound
        )
        // A ThingID subject names the thing in other scopes' ACLs; ANY_AUTHENTICATED_USER includes it.
        _ = try await world.objects.create(caller: alice.caller, scope: .user(alice.id), bucket: "shared", body: ["x": 1], objectID: "s1")
        #expect(
            await self.code { _ = try await world.objects.get(caller: thing.caller, scope: .user(alice.id), bucket: "shared", objectID: "s1") }
                == .objectNotFound
        )
        _ = try await world.objects.changeACL(
            caller: alice.caller,
            target: ACLTarget(scope: .user(alice.id), bucket: "shared", objectID: "s1"),
            entries: [.init(action: "READ_EXISTING_OBJECT", subject: "ThingID:\(thing.id)")],
            revoke: false,
            atomic: true,
            ensure: false
        )
        #expect(try await world.objects.get(caller: thing.caller, scope: .user(alice.id), bucket: "shared", objectID: "s1").fields["x"] == 1)
        _ = try await world.objects.create(caller: thing.caller, scope: .app, bucket: "public", body: ["y": 1], objectID: "p1")

        _ = try await world.things.send(caller: alice.caller, thingID: thing.id, request: world.request(.user(alice.id)))
        _ = try await world.things.putState(caller: thing.caller, thingID: thing.id, state: ["on": true], timestamp: nil)
        try await world.things.delete(caller: alice.caller, thingID: thing.id)
        #expect(await self.code { _ = try await world.things.get(caller: world.admin, thingID: thing.id) } == .thingNotFound)
        #expect(
            await self.code { _ = try await world.objects.get(caller: world.admin, scope: scope, bucket: "log", objectID: "l1") } == .thingNotFound
        )
        #expect(
            try await world.objects.acl(caller: alice.caller, target: ACLTarget(scope: .user(alice.id), bucket: "shared", objectID: "s1"))
                .allSatisfy { $0.subject != .thing(thing.id) }
        )
        // Its token no longer resolves.
        await #expect(throws: GuildError(.invalidToken, "")) { _ = try await world.users.resolve(accessToken: "gt_none") }
        #expect(try await world.temp.store.read { try $0.things.thingInvariantViolations() }.isEmpty)
    }

    @Test func deletingAUserOrGroupEndsTheirOwnerships() async throws {
        let world = try await World()
        defer { world.temp.remove() }
        let alice = try await world.user("alice")
        let bob = try await world.user("bob")
        let thing = try await world.onboard(alice.caller, alice.id)
        _ = try await world.onboard(bob.caller, bob.id)
        _ = try await world.groups.create(caller: alice.caller, name: "Home", groupID: "home", type: .basic, members: [])
        try await world.things.addOwner(caller: alice.caller, thingID: thing.id, owner: .group("home"), password: nil)
        _ = try await world.things.registerInstallation(caller: bob.caller, deviceType: "ANDROID", registrationID: "b", development: false)
        _ = try await world.users.delete(caller: bob.caller, userID: nil)
        try await world.groups.delete(caller: alice.caller, groupID: "home")
        #expect(try await world.things.owners(caller: alice.caller, thingID: thing.id) == [.user(alice.id)])
        #expect(try await world.temp.store.read { try $0.things.installations(userID: bob.id) }.isEmpty)
        #expect(try await world.temp.store.read { try $0.things.thingInvariantViolations() }.isEmpty)
        #expect(try await world.replayedKinds(alice.id).contains("thingOwnerRemoved"))
    }

    @Test func startingUpTurnsEveryThingOfflineInOneTransaction() async throws {
        let world = try await World()
        defer { world.temp.remove() }
        let owner = try await world.user("presence-owner")
        let lamp = try await world.onboard(owner.caller, owner.id, vendor: "lamp-on")
        let fan = try await world.onboard(owner.caller, owner.id, vendor: "fan-on")
        let door = try await world.onboard(owner.caller, owner.id, vendor: "door-off")
        try await world.things.setOnline(thingID: lamp.id) { true }
        try await world.things.setOnline(thingID: fan.id) { true }
        // The next run: a new host id, on a store only it opens, so every other host's rows are a past run's.
        var nextRun = world.things
        nextRun.presenceHost = PresenceHost()
        let before = world.temp.store.writeStatistics
        try await nextRun.startPresence()
        let after = world.temp.store.writeStatistics
        #expect(after.commits - before.commits == 1)
        #expect(after.operations - before.operations == 1)
        for id in [lamp.id, fan.id, door.id] {
            #expect(try await world.things.get(caller: world.admin, thingID: id).online == false)
        }
        let kinds = try await world.replayedKinds(owner.id)
        #expect(kinds.filter { $0 == "thingConnected" }.count == 2)
        #expect(kinds.filter { $0 == "thingDisconnected" }.count == 2, "\(kinds)")
        // Nothing left online: the next start changes nothing and tells no one.
        var third = world.things
        third.presenceHost = PresenceHost()
        try await third.startPresence()
        #expect(try await world.replayedKinds(owner.id) == kinds)
    }

    @Test func aThingBoundOnTwoHostsIsOnlineUntilBothLetGo() async throws {
        let world = try await World()
        defer { world.temp.remove() }
        let owner = try await world.user("two-hosts-owner")
        let lamp = try await world.onboard(owner.caller, owner.id, vendor: "lamp-two-hosts")
        var hostB = world.things
        hostB.presenceHost = PresenceHost()
        try await world.things.setOnline(thingID: lamp.id) { true }
        try await hostB.setOnline(thingID: lamp.id) { true }
        #expect(try await world.things.get(caller: world.admin, thingID: lamp.id).online)
        // Host A lets go: host B still has it.
        try await world.things.setOnline(thingID: lamp.id) { false }
        #expect(try await world.things.get(caller: world.admin, thingID: lamp.id).online)
        try await hostB.setOnline(thingID: lamp.id) { false }
        #expect(try await world.things.get(caller: world.admin, thingID: lamp.id).online == false)
        // Once each, however many hosts had it.
        let kinds = try await world.replayedKinds(owner.id).filter { $0 == "thingConnected" || $0 == "thingDisconnected" }
        #expect(kinds == ["thingConnected", "thingDisconnected"])
    }

    @Test func aHostWhoseLeaseEndedIsReapedOnceAndComesBackWhenItRenews() async throws {
        let world = try await World()
        defer { world.temp.remove() }
        let owner = try await world.user("lease-owner")
        let lamp = try await world.onboard(owner.caller, owner.id, vendor: "lamp-lease")
        let fan = try await world.onboard(owner.caller, owner.id, vendor: "fan-lease")
        try await world.things.startPresence()
        try await world.things.setOnline(thingID: fan.id) { true }
        // Host B (beside A, as on a shared store) takes a lease, the shortest there is: it has ended by the time A
        // looks.
        var hostB = world.things
        hostB.presenceHost = PresenceHost(lease: 5)
        #expect(try await hostB.renewPresence(bound: { [] }) == false)
        try await hostB.setOnline(thingID: lamp.id) { true }
        try await Task.sleep(for: .milliseconds(20))
        #expect(try await world.things.reapDeadHosts() == [hostB.presenceHost.id])
        #expect(try await world.things.get(caller: world.admin, thingID: lamp.id).online == false)
        #expect(try await world.things.get(caller: world.admin, thingID: fan.id).online)
        // Found again: no host to reap, no second event.
        #expect(try await world.things.reapDeadHosts() == [])
        // B was alive after all: its renewal finds no lease, takes one and records what is bound on it again.
        #expect(try await hostB.renewPresence(bound: { [lamp.id] }) == false)
        #expect(try await world.things.get(caller: world.admin, thingID: lamp.id).online)
        #expect(try await hostB.renewPresence(bound: { [lamp.id] }))
        // A stops: its things go offline at once.
        try await world.things.stopPresence()
        #expect(try await world.things.get(caller: world.admin, thingID: fan.id).online == false)
        let kinds = try await world.replayedKinds(owner.id).filter { $0 == "thingConnected" || $0 == "thingDisconnected" }
        #expect(kinds == ["thingConnected", "thingConnected", "thingDisconnected", "thingConnected", "thingDisconnected"])
    }

    @Test func ownershipNeedsThePasswordWhenTheDaemonSaysSo() async throws {
        let world = try await World()
        defer { world.temp.remove() }
        let alice = try await world.user("alice")
        let bob = try await world.user("bob")
        let thing = try await world.onboard(alice.caller, alice.id)
        var strict = world.things
        strict.requirePasswordForOwnership = true
        #expect(
            await self.code { try await strict.addOwner(caller: bob.caller, thingID: thing.id, owner: .user(bob.id), password: nil) }
                == .invalidCredentials
        )
        #expect(
            await self.code { try await strict.addOwner(caller: bob.caller, thingID: thing.id, owner: .user(bob.id), password: "no") }
                == .invalidCredentials
        )
        try await strict.addOwner(caller: bob.caller, thingID: thing.id, owner: .user(bob.id), password: "pw")
        // The thing itself adds owners without it.
        let carol = try await world.user("carol")
        try await strict.addOwner(caller: thing.caller, thingID: thing.id, owner: .user(carol.id), password: nil)
        try await strict.removeOwner(caller: carol.caller, thingID: thing.id, owner: .user(carol.id))
        #expect(
            await self.code { try await strict.removeOwner(caller: carol.caller, thingID: thing.id, owner: .user(carol.id)) }
                == .thingOwnershipNotFound
        )
        #expect(try await strict.owners(caller: thing.caller, thingID: thing.id) == [.user(alice.id), .user(bob.id)])
    }

    /// Issue 39: at most ``ThingService/maximumInstallationsPerUser`` installations a user. The rule is the
    /// service's, over a count from the records, so both engines share it.
    @Test func installationsAreCappedPerUser() async throws {
        let world = try await World()
        let alice = try await world.user("alice")
        let bob = try await world.user("bob")
        let cap = ThingService.maximumInstallationsPerUser
        #expect(cap == 100)
        var ids: [String] = []
        for index in 0..<cap {
            ids.append(
                try await world.things.registerInstallation(caller: alice.caller, deviceType: "IOS", registrationID: "r\(index)", development: false)
                    .installationID
            )
        }
        do {
            _ = try await world.things.registerInstallation(caller: alice.caller, deviceType: "IOS", registrationID: "new", development: false)
            Issue.record("the installation past the cap was stored")
        } catch let error as GuildError {
            #expect(error.code == .quotaExceeded)
            #expect(error.details == ["limit": 100, "usage": 100])
            #expect(error.message.contains("at most 100 installations"))
        }
        let known = try await world.things.registerInstallation(caller: alice.caller, deviceType: "IOS", registrationID: "r3", development: false)
        #expect(known.installationID == ids[3])
        _ = try await world.things.registerInstallation(caller: bob.caller, deviceType: "IOS", registrationID: "r0", development: false)
        #expect(try await world.temp.store.read { try $0.things.installationCount(userID: alice.id) } == cap)
    }

    /// `installation.list` pages the caller's own installations; a key the daemon did not make is refused.
    @Test func installationsArePagedPerUser() async throws {
        let world = try await World()
        let alice = try await world.user("alice")
        let bob = try await world.user("bob")
        for index in 0..<30 {
            _ = try await world.things.registerInstallation(caller: alice.caller, deviceType: "IOS", registrationID: "r\(index)", development: false)
        }
        _ = try await world.things.registerInstallation(caller: bob.caller, deviceType: "IOS", registrationID: "r0", development: false)
        let whole = try await world.things.installations(caller: alice.caller)
        #expect(whole.installations.count == 30 && whole.nextPaginationKey == nil)
        var paged: [String] = []
        var key: String?
        repeat {
            let page = try await world.things.installations(caller: alice.caller, limit: 7, paginationKey: key)
            paged += page.installations.map(\.installationID)
            key = page.nextPaginationKey
        } while key != nil && paged.count <= 30
        #expect(paged == whole.installations.map(\.installationID))
        let aliceKey = try #require(try await world.things.installations(caller: alice.caller, limit: 1).nextPaginationKey)
        // Keys are sealed for their caller: Alice's is no key for Bob, and made-up positions are no keys at all.
        await #expect(throws: GuildError.invalidInput("", field: "paginationKey")) {
            try await world.things.installations(caller: bob.caller, paginationKey: aliceKey)
        }
        for bad in ["", "%%%", "MTIz", "LTE6aW4uYQ", "MTphAGI"] {  // "", not base64, "123", "-1:in.a", "1:a\0b"
            await #expect(throws: GuildError.invalidInput("", field: "paginationKey")) {
                try await world.things.installations(caller: alice.caller, paginationKey: bad)
            }
        }
        for limit in [0, 101] {
            await #expect(throws: GuildError.invalidInput("", field: "limit")) {
                try await world.things.installations(caller: alice.caller, limit: limit)
            }
        }
    }
}
