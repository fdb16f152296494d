import Foundation
import GuildClient
import GuildJSON
import GuildProtocol
import GuildTestSupport
import Testing

/// `clients/python/examples/device_simulator.py` against a real daemon: it onboards a lamp for its owner, runs
/// a command sent while it was not yet connected and one sent while it runs, posts one result per action in
/// order (a failing action fails alone), uploads its state, and the owner's installation gets both results.
@Suite(.endToEnd)
struct DeviceSimulatorExampleTests {
    @Test func theSimulatedLampRunsCommandsAndReportsResults() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let daemon = try await RealDaemon.start(scratch)
        defer { daemon.terminate() }
        let owner = try await GuildClient.connect(path: scratch.socket)
        let me = try await owner.call(UserMethods.RegisterPseudo.self, .init(displayName: "owner"))
        _ = try await owner.registerInstallation(deviceType: "IOS", registrationID: "phone")
        let results = try await owner.subscribe(kinds: ["commandResult"])

        // Onboarded by the simulator itself, which prints the thing's id first.
        let simulator = try await Child(
            "/usr/bin/env",
            [
                "python3", "examples/device_simulator.py", "--socket", scratch.socket, "--owner-token", me.accessToken,
                "--vendor-thing-id", "lamp-sim", "--password", "lamp-pw", "--count", "2",
            ],
            currentDirectory: PythonClientTests.clientDirectory
        )
        var thingID: String?
        for _ in 0..<200 where thingID == nil {
            if let line = simulator.stdout.split(separator: "\n").first,
                let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            {
                thingID = object["thingID"] as? String
            }
            if thingID == nil { try await Task.sleep(for: .milliseconds(50)) }
        }
        let thing = try #require(thingID, "the simulator printed no thing id: \(simulator.stdout)\(simulator.stderr)")
        let request: (String, [JSONValue]) -> CommandMethods.CommandRequest = { _, actions in
            .init(actions: actions, issuer: "user:" + me.user.userID, schema: "Lamp", schemaVersion: 1)
        }
        let first = try await owner.sendCommand(thing, request("on", [["turnPower": ["power": true]], ["setBrightness": ["brightness": 80]]]))
        let second = try await owner.sendCommand(
            thing,
            request("bad", [["blink": ["times": 3]], ["setBrightness": ["brightness": 300]], ["dance": [:]]])
        )

        let status = await simulator.wait(timeout: Child.runTimeout)
        #expect(status == 0, "\(simulator.stdout)\(simulator.stderr)")
        let done = try await owner.command(thing, commandID: first)
        #expect(done.commandState == "DONE")
        #expect(done.actionResults == [["turnPower": ["succeeded": true]], ["setBrightness": ["succeeded": true, "data": ["brightness": 80]]]])
        let incomplete = try await owner.command(thing, commandID: second)
        #expect(incomplete.commandState == "INCOMPLETE")
        #expect(
            incomplete.actionResults == [
                ["blink": ["succeeded": true]], ["setBrightness": ["succeeded": false, "errorMessage": "brightness must be 0-100"]],
                ["dance": ["succeeded": false, "errorMessage": "unknown action dance"]],
            ]
        )
        let state = try await owner.thingState(thing)
        #expect(state.state == ["power": true, "brightness": 80, "blinks": 3])
        // The owner's installation got both results, the commandID only.
        var pushed: [String] = []
        for try await event in results.events where event.kind == "commandResult" {
            pushed.append(event.commandID ?? "")
            if pushed.count == 2 { break }
        }
        #expect(Set(pushed) == [first, second])
        await owner.close()
    }

    /// The simulator outlives a daemon restart: it reconnects by itself (the stop is `SHUTTING_DOWN` or a lost
    /// connection, then refused connections until the new daemon listens) and answers a command sent after it.
    /// A new simulator starts from the thing's last uploaded state and runs the command that waited for it.
    @Test func theSimulatorCarriesOnAcrossADaemonRestartAndResumesTheLampsState() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        var daemon = try await RealDaemon.start(scratch)
        var owner = try await GuildClient.connect(path: scratch.socket)
        let me = try await owner.call(UserMethods.RegisterPseudo.self, .init(displayName: "owner"))
        let onboarded = try await owner.call(
            ThingMethods.Onboard.self,
            .init(vendorThingID: "lamp-restart", thingPassword: "lamp-pw", owner: "user:" + me.user.userID)
        )
        let request: ([JSONValue]) -> CommandMethods.CommandRequest = { actions in
            .init(actions: actions, issuer: "user:" + me.user.userID, schema: "Lamp", schemaVersion: 1)
        }
        func simulator(count: Int) async throws -> Child {
            try await Child(
                "/usr/bin/env",
                [
                    "python3", "examples/device_simulator.py", "--socket", scratch.socket, "--thing-id", onboarded.thingID,
                    "--thing-token", onboarded.accessToken, "--count", String(count),
                ],
                currentDirectory: PythonClientTests.clientDirectory
            )
        }
        let first = try await simulator(count: 2)
        defer { first.terminate() }
        let on = try await owner.sendCommand(onboarded.thingID, request([["turnPower": ["power": true]]]))
        try await Eventually.until(every: .milliseconds(50)) { first.stdout.contains(on) }
        #expect(first.stdout.contains(on), "\(first.stdout)\(first.stderr)")
        await owner.close()

        daemon.signal(SIGTERM)
        _ = await daemon.wait()
        daemon = try await RealDaemon.start(scratch)
        defer { daemon.terminate() }
        owner = try await GuildClient.connect(path: scratch.socket)
        _ = try await owner.call(SessionMethods.Authenticate.self, .init(accessToken: me.accessToken))
        let dim = try await owner.sendCommand(onboarded.thingID, request([["setBrightness": ["brightness": 10]]]))
        #expect(await first.wait() == 0, "\(first.stdout)\(first.stderr)")
        #expect(try await owner.command(onboarded.thingID, commandID: dim).commandState == "DONE")
        // Each command ran once: one line each.
        #expect(first.stdout.split(separator: "\n").filter { $0.contains("commandID") }.count == 2, "\(first.stdout)")

        // Blinking needs the power on: only a new simulator that took up the uploaded state succeeds.
        let blink = try await owner.sendCommand(onboarded.thingID, request([["blink": ["times": 2]]]))
        let second = try await simulator(count: 1)
        defer { second.terminate() }
        #expect(await second.wait() == 0, "\(second.stdout)\(second.stderr)")
        #expect(try await owner.command(onboarded.thingID, commandID: blink).actionResults == [["blink": ["succeeded": true]]])
        let state = try await owner.thingState(onboarded.thingID)
        #expect(state.state == ["power": true, "brightness": 10, "blinks": 2])
        await owner.close()
    }

    /// `--schedule`: the simulator gives its lamp a cron schedule, and the command it sends at the schedule's time
    /// reaches the simulator like any other (the daemon's things' clock put 20 s before 07:00 UTC). The schedule
    /// fires at each minute of 07:00-07:05, so a busy machine that takes more than the 20 s to start the simulator
    /// and create the trigger gets the next of those minutes, not the next day; and one that is slow after the
    /// first firing may see the next minute fire too before the results are read (its command stays unanswered,
    /// the simulator having stopped after one).
    @Test func theSimulatedLampGetsItsScheduledCommand() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let seven = Int64(ISO8601DateFormatter().date(from: "2026-11-29T07:00:00Z")!.timeIntervalSince1970 * 1000)
        let daemon = try await RealDaemon.start(scratch, ["--test-clock-start", "\(seven - 20_000)"], environment: ["TZ": "UTC"])
        defer { daemon.terminate() }
        let owner = try await GuildClient.connect(path: scratch.socket)
        let me = try await owner.call(UserMethods.RegisterPseudo.self, .init(displayName: "owner"))
        let simulator = try await Child(
            "/usr/bin/env",
            [
                "python3", "examples/device_simulator.py", "--socket", scratch.socket, "--owner-token", me.accessToken,
                "--vendor-thing-id", "lamp-clock", "--password", "lamp-pw", "--count", "1", "--schedule", "0-5 7 * * *",
            ],
            currentDirectory: PythonClientTests.clientDirectory
        )
        let status = await simulator.wait(timeout: Child.runTimeout)
        #expect(status == 0, "\(simulator.stdout)\(simulator.stderr)")
        let first = try #require(simulator.stdout.split(separator: "\n").first)
        let printed = try #require(try JSONSerialization.jsonObject(with: Data(first.utf8)) as? [String: Any])
        let thing = try #require(printed["thingID"] as? String)
        let triggerID = try #require(printed["triggerID"] as? String)
        #expect(printed["timeZone"] as? String == "UTC")
        let nextFireAt = (printed["nextFireAt"] as? NSNumber)?.int64Value ?? 0
        #expect((0...5).map { seven + Int64($0) * 60_000 }.contains(nextFireAt), "next fire at \(nextFireAt)")
        // Newest first: the oldest firing is the one the simulator answered, at the time it printed; each firing
        // is at a minute of its own.
        let results = try await owner.triggerResults(thing, triggerID).results
        #expect(!results.isEmpty && results.allSatisfy { $0.outcome == "COMMAND_SENT" && $0.eventSource == "SCHEDULE" })
        #expect(results.last?.dueAt == nextFireAt, "\(results)")
        let dueTimes = results.reversed().compactMap(\.dueAt)
        #expect(dueTimes.count == results.count && zip(dueTimes, dueTimes.dropFirst()).allSatisfy { $0 < $1 }, "\(results)")
        let command = try await owner.command(thing, commandID: try #require(results.last?.commandID))
        #expect(command.commandState == "DONE")
        #expect(command.firedByTriggerID == triggerID)
        #expect(try await owner.thingState(thing).state["power"] == true)
        await owner.close()
    }
}
