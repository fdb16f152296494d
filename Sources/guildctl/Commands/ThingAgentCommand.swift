import ArgumentParser
import Foundation
import GuildClient
import GuildJSON
import GuildProtocol

/// `guildctl thing agent`: a thing run by a shell command, for shell-scripted devices.
struct ThingAgentCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "agent",
        abstract: "Act as a thing: run a shell command for each command it receives and post its exit status as the result.",
        discussion: """
            Connects with the thing's token (--token or GUILD_TOKEN) and receives its commands: first those it has \
            not answered yet, then each new one. For each, CMD runs under /bin/sh -c with the command as JSON \
            ({"commandID", "thingID", "actions"}) on stdin and in the environment GUILD_COMMAND_ID, \
            GUILD_THING_ID and GUILD_ACTIONS (the actions as JSON).

            Exit status 0: every action succeeded; if CMD printed a JSON array of per-action results \
            ([{"name": {"succeeded": true, "data": ...}}, ...], one per action in order), those are posted \
            instead. Any other status: every action failed, with errorMessage "exit status N" and the last line \
            CMD wrote to stderr. One line per command is printed: its id and its state (DONE or INCOMPLETE).
            """
    )

    @OptionGroup var thing: ThingOptions
    @Option(name: .customLong("exec"), help: ArgumentHelp("The shell command to run per command.", valueName: "cmd"))
    var command: String
    @Option(help: ArgumentHelp("Exit after this many commands (default: run until the connection closes).", valueName: "n"))
    var count: Int?
    @OptionGroup var options: GlobalOptions

    func validate() throws {
        if self.options.explicitToken == nil { throw ValidationError("Give the thing's token with --token or GUILD_TOKEN.") }
        if let count = self.count, count < 1 { throw ValidationError("--count is at least 1.") }
    }

    func run() async throws {
        let agent: ThingAgent
        do {
            agent = try await ThingAgent.connect(
                path: self.options.socketPath,
                thingID: self.thing.thingID,
                accessToken: self.options.explicitToken ?? ""
            )
        } catch {
            throw Runner.report(error, json: self.options.json)
        }
        defer { Task { await agent.close() } }
        var handled = 0
        do {
            for try await command in agent.commands() {
                let outcome = try await Self.execute(self.command, command, thingID: self.thing.thingID)
                let state: String
                if let results = outcome.results {
                    state = try await agent.client.putCommandResults(self.thing.thingID, commandID: command.commandID, results: results)
                } else {
                    state = try await agent.post(
                        command,
                        outcomes: command.actionNames.map { _ in (outcome.status == 0, outcome.status == 0 ? nil : outcome.message, nil) }
                    )
                }
                try? FileHandle.standardOutput.write(contentsOf: Data("\(command.commandID) \(state)\n".utf8))
                handled += 1
                if let count = self.count, handled >= count { break }
            }
        } catch {
            throw Runner.report(error, json: self.options.json)
        }
    }

    /// What running CMD for a command gave: its exit status, the results it printed (when it succeeded and
    /// printed one per action), and the message for failed actions.
    struct Outcome {
        var status: Int32
        var results: [JSONValue]?
        var message: String
    }

    static func execute(_ shell: String, _ command: ThingAgent.Command, thingID: String) async throws -> Outcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", shell]
        var actions: [UInt8] = []
        JSONValue.array(command.actions).writeJSON(to: &actions)
        var input: [UInt8] = []
        JSONValue.object(["commandID": .string(command.commandID), "thingID": .string(thingID), "actions": .array(command.actions)])
            .writeJSON(to: &input)
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
        let exited = AsyncStream<Int32>.makeStream()
        process.terminationHandler = { exited.continuation.yield($0.terminationStatus) }
        try process.run()
        try? stdin.fileHandleForWriting.write(contentsOf: Data(input + [0x0A]))
        try? stdin.fileHandleForWriting.close()
        // Read both pipes to their ends before waiting, so a chatty command never blocks on a full pipe.
        async let output = Task.detached { stdout.fileHandleForReading.readDataToEndOfFile() }.value
        async let errors = Task.detached { stderr.fileHandleForReading.readDataToEndOfFile() }.value
        let (printed, complaints) = await (output, errors)
        var statuses = exited.stream.makeAsyncIterator()
        let status = await statuses.next() ?? -1
        let lastError = String(decoding: complaints, as: UTF8.self).split(separator: "\n").last.map(String.init) ?? ""
        var results: [JSONValue]?
        if status == 0, case .array(let items)? = try? JSONArgument.value(String(decoding: printed, as: UTF8.self)),
            items.count == command.actions.count
        {
            results = items
        }
        return Outcome(status: status, results: results, message: lastError.isEmpty ? "exit status \(status)" : "exit status \(status): \(lastError)")
    }
}
