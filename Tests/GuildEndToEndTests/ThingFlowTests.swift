import Foundation
import GuildClient
import GuildJSON
import GuildProtocol
import GuildTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Things through a real guildd with GuildClient: a command's round trip (the thing receives it on its
/// subscription, DELIVERED once written to it, results posted, commandResult to the issuer's installation),
/// presence events, a thing offline when the command was sent, and a kill -9 between send and result.
@Suite(.endToEnd)
struct ThingFlowTests {
    /// An owner (pseudo user) with an installation bound to its connection, and a thing it onboarded.
    struct Fixture {
        let owner: GuildClient
        let ownerID: String
        let ownerToken: String
        let thingID: String
        let thingToken: String

        static func make(_ socket: String, vendor: String = "lamp-1") async throws -> Fixture {
            let owner = try await GuildClient.connect(path: socket)
            let pseudo = try await owner.call(UserMethods.RegisterPseudo.self, .init(displayName: "owner"))
            _ = try await owner.registerInstallation(deviceType: "ANDROID", registrationID: "phone")
            let onboarded = try await owner.onboardThing(vendorThingID: vendor, password: "pw", owner: "user:" + pseudo.user.userID)
            return Fixture(
                owner: owner,
                ownerID: pseudo.user.userID,
                ownerToken: pseudo.accessToken,
                thingID: onboarded.thingID,
                thingToken: onboarded.accessToken
            )
        }

        func request(
            _ actions: [JSONValue] = [["turnPower": ["power": true]], ["setBrightness": ["brightness": 70]]]
        )
            -> CommandMethods.CommandRequest
        {
            .init(actions: actions, issuer: "user:" + self.ownerID, schema: "SmartLight", schemaVersion: 1)
        }
    }

    /// The next event of `kind` from `events`, within `seconds` (a minute unless given: it only catches a hang).
    static func next(
        _ kind: String,
        in events: AsyncThrowingStream<GuildEvent, any Error>,
        within seconds: Double = 60
    ) async throws -> GuildEvent {
        try await withThrowingTaskGroup(of: GuildEvent?.self) { group in
            group.addTask {
                for try await event in events where event.kind == kind { return event }
                return nil
            }
            group.addTask {
                try await Task.sleep(for: .seconds(seconds))
                return nil
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            return try #require(first, "no \(kind) within \(seconds) s")
        }
    }

    @Test func aCommandRoundTripsThroughTheThingToTheIssuersInstallation() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let daemon = try await RealDaemon.start(scratch)
        defer { daemon.terminate() }
        let socket = scratch.socket
        let fixture = try await Fixture.make(socket)
        let ownerEvents = try await fixture.owner.subscribe()
        let agent = try await ThingAgent.connect(path: socket, thingID: fixture.thingID, accessToken: fixture.thingToken)
        let connected = try await Self.next("thingConnected", in: ownerEvents.events)
        #expect(connected.thingID == fixture.thingID)
        #expect(try await fixture.owner.thing(fixture.thingID).online)
        var commands = agent.commands().makeAsyncIterator()
        // Give the agent's subscription a moment, then send.
        try await Task.sleep(for: .milliseconds(200))
        let commandID = try await fixture.owner.sendCommand(fixture.thingID, fixture.request())
        let received = try #require(try await commands.next())
        #expect(received.commandID == commandID && received.actionNames == ["turnPower", "setBrightness"])
        // DELIVERED once the notification was written to the thing's connection.
        var state = ""
        try await Eventually.until {
            state = try await fixture.owner.command(fixture.thingID, commandID: commandID).commandState
            return state == "DELIVERED"
        }
        #expect(state == "DELIVERED")
        let final = try await agent.post(received, outcomes: [(true, nil, ["level": 1]), (false, "too bright", nil)])
        #expect(final == "INCOMPLETE")
        let result = try await Self.next("commandResult", in: ownerEvents.events)
        #expect(result.commandID == commandID)
        #expect(result.actions == nil && result.thingID == nil, "a result push carries the commandID only")
        let read = try await fixture.owner.command(fixture.thingID, commandID: commandID)
        #expect(read.commandState == "INCOMPLETE")
        #expect(
            read.actionResults == [
                ["turnPower": ["succeeded": true, "data": ["level": 1]]], ["setBrightness": ["succeeded": false, "errorMessage": "too bright"]],
            ]
        )
        // State uploads reach the owner; the thing going away too.
        #expect(try await agent.putState(["power": true]))
        let changed = try await Self.next("thingStateChanged", in: ownerEvents.events)
        #expect(changed.state == ["power": true])
        await agent.close()
        let gone = try await Self.next("thingDisconnected", in: ownerEvents.events)
        #expect(gone.thingID == fixture.thingID)
        #expect(try await fixture.owner.thing(fixture.thingID).online == false)
        await fixture.owner.close()
    }

    @Test func aThingOfflineWhenACommandIsSentGetsItOnReconnect() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let daemon = try await RealDaemon.start(scratch)
        defer { daemon.terminate() }
        let socket = scratch.socket
        let fixture = try await Fixture.make(socket)
        let first = try await fixture.owner.sendCommand(fixture.thingID, fixture.request([["beep": [:]]]))
        let second = try await fixture.owner.sendCommand(fixture.thingID, fixture.request([["blink": ["times": 2]]]))
        #expect(try await fixture.owner.command(fixture.thingID, commandID: first).commandState == "SENDING")
        let agent = try await ThingAgent.connect(path: socket, thingID: fixture.thingID, accessToken: fixture.thingToken)
        var commands = agent.commands().makeAsyncIterator()
        let got = [try #require(try await commands.next()), try #require(try await commands.next())]
        #expect(got.map(\.commandID) == [first, second], "oldest first")
        try await agent.succeed(got[0])
        await agent.close()
        // Reconnected: only the unanswered one comes again.
        let again = try await ThingAgent.connect(path: socket, thingID: fixture.thingID, accessToken: fixture.thingToken)
        var replayed = again.commands().makeAsyncIterator()
        #expect(try await replayed.next()?.commandID == second)
        try await again.succeed(got[1])
        #expect(try await fixture.owner.command(fixture.thingID, commandID: second).commandState == "DONE")
        await again.close()
        await fixture.owner.close()
    }

    @Test func aKillNineBetweenSendAndResultLosesNeitherCommandNorResult() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        var daemon = try await RealDaemon.start(scratch)
        let fixture = try await Fixture.make(scratch.socket)
        let commandID = try await fixture.owner.sendCommand(fixture.thingID, fixture.request())
        await fixture.owner.close()
        daemon.signal(SIGKILL)
        _ = await daemon.wait()

        daemon = try await RealDaemon.start(scratch)
        let agent = try await ThingAgent.connect(path: scratch.socket, thingID: fixture.thingID, accessToken: fixture.thingToken)
        var commands = agent.commands().makeAsyncIterator()
        let received = try #require(try await commands.next())
        #expect(received.commandID == commandID)
        #expect(try await agent.succeed(received) == "DONE")
        daemon.signal(SIGKILL)
        _ = await daemon.wait()

        daemon = try await RealDaemon.start(scratch)
        defer { daemon.terminate() }
        let owner = try await GuildClient.connect(path: scratch.socket)
        _ = try await owner.call(SessionMethods.Authenticate.self, .init(accessToken: fixture.ownerToken))
        let read = try await owner.command(fixture.thingID, commandID: commandID)
        #expect(read.commandState == "DONE")
        #expect(read.actionResults?.count == 2)
        // The thing is offline after the restart: its connection died with the daemon.
        #expect(try await owner.thing(fixture.thingID).online == false)
        // The result push was kept for the owner's installation: a resumed subscription from 0 replays it.
        _ = try await owner.registerInstallation(deviceType: "ANDROID", registrationID: "phone")
        let replay = try await owner.subscribe(kinds: ["commandResult"], since: 0)
        let result = try await Self.next("commandResult", in: replay.events)
        #expect(result.commandID == commandID)
        await owner.close()
    }
}
