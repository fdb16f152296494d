import ArgumentParser
import Foundation
import GuildClient
import GuildJSON
import GuildProtocol
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `guildctl thing agent`: a thing run by a shell command, for shell-scripted devices.
struct ThingAgentCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "agent",
        abstract: "Act as a thing: run a shell command for each command it receives and post its exit status as the result.",
        discussion: """
            Connects with the thing's token (--token, GUILD_TOKEN, or the profile `thing onboard --save` kept) \
            and receives its commands: first those it has not answered yet, oldest first, then each new one. \
            For each, CMD runs under /bin/sh -c with the command as one line of JSON \
            ({"commandID", "thingID", "actions"}) on stdin and in the environment GUILD_COMMAND_ID, \
            GUILD_THING_ID and GUILD_ACTIONS (the actions as JSON: [{"name": params}, ...]). Commands run one at \
            a time, in order.

            Results: exit status 0 means every action succeeded; if CMD then printed a JSON array on stdout, it \
            is posted as the results instead, one {"name": {"succeeded": BOOL, "errorMessage"?: TEXT, \
            "data"?: JSON}} per action in the actions' order (the format of command.putResults); results the \
            daemon refuses become every action failed with errorMessage "invalid results: ...". Other stdout is \
            ignored. Any other status means every action failed with errorMessage "exit status N" (followed by \
            ": " and the last line CMD wrote to stderr, if any; "signal N" when CMD was killed). CMD's stderr is \
            copied to the agent's stderr.

            One line per answered command is printed on stdout: its id and its state (DONE or INCOMPLETE).

            The agent runs until --count commands were answered (exit 0), until SIGINT or SIGTERM (exit 0; a \
            running CMD and the processes it started get SIGTERM, and its command is left unanswered, so the next start runs it again), or \
            until the connection to guildd is lost (exit 69: restart the agent, e.g. under systemd with \
            Restart=on-failure, to pick up the unanswered commands).

            Example: guildctl thing agent --thing th.… --token "$THING_TOKEN" --exec ./handle-command.sh
            """
    )

    @OptionGroup var thing: ThingOptions
    @Option(name: .customLong("exec"), help: ArgumentHelp("The shell command to run per command (/bin/sh -c CMD).", valueName: "cmd"))
    var command: String
    @Option(help: ArgumentHelp("Exit 0 after answering this many commands (default: run until interrupted).", valueName: "n"))
    var count: Int?
    @OptionGroup var options: GlobalOptions

    func validate() throws {
        if !self.options.hasSession {
            throw ValidationError("Give the thing's token with --token or GUILD_TOKEN (or a --profile saved by thing onboard --save).")
        }
        if let count = self.count, count < 1 { throw ValidationError("--count is at least 1.") }
        if self.command.isEmpty { throw ValidationError("--exec needs a shell command.") }
    }

    /// How the agent stopped without an error.
    private enum Ending: Sendable {
        case interrupted
        case finished
    }

    func run() async throws {
        // A CMD that exits without reading its stdin must not kill the agent with SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
        let token = try await Runner.sessionToken(self.options) ?? ""
        let agent: ThingAgent
        do {
            agent = try await ThingAgent.connect(path: self.options.socketPath, thingID: self.thing.thingID, accessToken: token)
        } catch {
            throw Runner.report(error, json: self.options.json)
        }
        let child = RunningChild()
        let interrupts = Interrupts.start { _ in child.stop() }
        defer { interrupts.stop() }
        let signals = interrupts.signals
        do {
            _ = try await withThrowingTaskGroup(of: Ending.self) { group in
                group.addTask {
                    for await _ in signals { return .interrupted }
                    return .finished
                }
                group.addTask {
                    try await self.serve(agent, child)
                    return .finished
                }
                let ending = try await group.next() ?? .finished
                group.cancelAll()
                return ending
            }
        } catch {
            await agent.close()
            throw Self.report(error, json: self.options.json)
        }
        await agent.close()
    }

    /// Runs CMD for each command and posts its results, until `--count` commands or cancellation (a signal).
    /// Throws when the command stream ends otherwise: the connection was lost.
    private func serve(_ agent: ThingAgent, _ child: RunningChild) async throws {
        var handled = 0
        for try await command in agent.commands() {
            let outcome = try await Self.execute(self.command, command, thingID: self.thing.thingID, child: child)
            if child.isStopped || Task.isCancelled { return }  // interrupted: left unanswered for the next start
            let state = try await Self.post(outcome, for: command, agent: agent)
            try? FileHandle.standardOutput.write(contentsOf: Data("\(command.commandID) \(state)\n".utf8))
            handled += 1
            if let count = self.count, handled >= count { return }
        }
        if child.isStopped || Task.isCancelled { return }
        throw GuildClientError.disconnected
    }

    /// Posts the outcome: the printed results if any (every action failed if the daemon refuses them), else one
    /// result per action from the exit status. Returns the command's state.
    static func post(_ outcome: Outcome, for command: ThingAgent.Command, agent: ThingAgent) async throws -> String {
        if let results = outcome.results {
            do {
                return try await agent.client.putCommandResults(agent.thingID, commandID: command.commandID, results: results)
            } catch let error as RPCError where error.code == .invalidParams {
                Output.printError("warning: command \(command.commandID): the results CMD printed were refused: \(error.message)")
                return try await agent.post(
                    command,
                    outcomes: command.actionNames.map { _ in (false, "invalid results: " + error.message, nil) }
                )
            }
        }
        let succeeded = outcome.failure == nil
        return try await agent.post(command, outcomes: command.actionNames.map { _ in (succeeded, outcome.failure, nil) })
    }

    /// Reports an error that ended the agent: a lost connection (or subscription) is exit 69.
    static func report(_ error: any Error, json: Bool) -> any Error {
        switch error {
        case SubscriptionEnd.disconnected:
            return Runner.report(GuildClientError.disconnected, json: json)
        case SubscriptionEnd.lagged:
            Output.printError("error: the thing's event subscription fell behind; restart the agent (unanswered commands come first)")
            return GuildExitCode.unavailable.exitCode
        case SubscriptionEnd.thingDisabled:
            Output.printError("error: the thing was disabled (thing.disable); restart the agent once an owner enables it (thing.enable)")
            return GuildExitCode.applicationError.exitCode
        default:
            return Runner.report(error, json: json)
        }
    }

    /// What running CMD for a command gave: the results it printed (exit 0 and a JSON array on stdout), and
    /// the errorMessage of every action when it failed (nil when it exited 0).
    struct Outcome: Sendable {
        var results: [JSONValue]?
        var failure: String?
    }

    /// Runs CMD for one command and waits for it to exit (or be stopped by `child`).
    static func execute(_ shell: String, _ command: ThingAgent.Command, thingID: String, child: RunningChild) async throws -> Outcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", shell]
        var actions: [UInt8] = []
        JSONValue.array(command.actions).writeJSON(to: &actions)
        var input: [UInt8] = []
        JSONValue.object(["commandID": .string(command.commandID), "thingID": .string(thingID), "actions": .array(command.actions)])
            .writeJSON(to: &input)
        input.append(0x0A)
        var environment = ProcessInfo.processInfo.environment
        environment["GUILD_COMMAND_ID"] = command.commandID
        environment["GUILD_THING_ID"] = thingID
        environment["GUILD_ACTIONS"] = String(decoding: actions, as: UTF8.self)
        process.environment = environment
        let stdin = Pipe()
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        let exited = AsyncStream<(Process.TerminationReason, Int32)>.makeStream()
        process.terminationHandler = { exited.continuation.yield(($0.terminationReason, $0.terminationStatus)) }
        try process.run()
        child.started(process.processIdentifier)
        defer { child.ended() }
        // Write stdin and read both pipes to their ends concurrently, so neither side blocks on a full pipe.
        let writer = Task.detached { [input] in
            try? stdin.fileHandleForWriting.write(contentsOf: Data(input))  // EPIPE when CMD does not read it
            try? stdin.fileHandleForWriting.close()
        }
        let output = Task.detached { stdout.fileHandleForReading.readDataToEndOfFile() }
        let errors = Task.detached { stderr.fileHandleForReading.readDataToEndOfFile() }
        var statuses = exited.stream.makeAsyncIterator()
        let (reason, status) = await statuses.next() ?? (.exit, -1)
        // Stopped by a signal: do not wait for what CMD's leftover children may still hold open.
        if child.isStopped || Task.isCancelled { return Outcome(failure: "stopped") }
        let (printed, complaints) = (await output.value, await errors.value)
        await writer.value
        try? FileHandle.standardError.write(contentsOf: complaints)

        if reason == .exit, status == 0 {
            let text = String(decoding: printed, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            if text.hasPrefix("["), case .array(let items)? = try? JSONArgument.value(text) {
                return Outcome(results: items)
            }
            return Outcome()
        }
        var message = reason == .uncaughtSignal ? "signal \(status)" : "exit status \(status)"
        let lastLine = String(decoding: complaints, as: UTF8.self).split(whereSeparator: \.isNewline).last.map(String.init) ?? ""
        let trimmed = lastLine.trimmingCharacters(in: .whitespaces)
        if !trimmed.isEmpty { message += ": " + String(trimmed.prefix(500)) }
        return Outcome(failure: message)
    }
}

/// The CMD process running now, so a signal can stop it; once stopped, a CMD started later is stopped at once.
/// Foundation starts CMD as the leader of its own process group (so a terminal's Ctrl-C does not reach it):
/// the whole group gets SIGTERM, the shell and what it started.
final class RunningChild: Sendable {
    private struct State {
        var pid: Int32?
        var stopped = false
    }

    private let state = Mutex(State())

    /// Records the running CMD (and stops it if the agent is stopping).
    func started(_ pid: Int32) {
        let stop = self.state.withLock { state in
            state.pid = pid
            return state.stopped
        }
        if stop { Self.terminate(pid) }
    }

    /// Whether the agent is stopping (a signal came).
    var isStopped: Bool { self.state.withLock { $0.stopped } }

    /// Forgets the CMD that exited.
    func ended() {
        self.state.withLock { $0.pid = nil }
    }

    /// Sends SIGTERM to the running CMD, if any, and to any started later.
    func stop() {
        let pid = self.state.withLock { state in
            state.stopped = true
            return state.pid
        }
        if let pid { Self.terminate(pid) }
    }

    /// SIGTERM to the process group led by `pid`, else to the process.
    private static func terminate(_ pid: Int32) {
        if kill(-pid, SIGTERM) != 0 { kill(pid, SIGTERM) }
    }
}
