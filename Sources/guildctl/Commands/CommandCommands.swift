import ArgumentParser
import Foundation
import GuildClient
import GuildJSON
import GuildProtocol

/// `guildctl command ...`: commands to things (see protocol/things.md).
struct CommandCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "command",
        abstract: "Send commands to things and read them with their results.",
        subcommands: [Send.self, Get.self, List.self]
    )
}

/// A command's request options, shared by `command send` and `trigger create`.
struct CommandRequestOptions: ParsableArguments {
    @Option(
        name: .customLong("action"),
        help: ArgumentHelp("An action as NAME or NAME=JSON (its params), repeated in order.", valueName: "name=json")
    )
    var actions: [String] = []
    @Option(name: .customLong("actions"), help: ArgumentHelp("All actions as a JSON array of {name: params}, or @FILE.", valueName: "json"))
    var actionsJSON: String?
    @Option(help: ArgumentHelp("The issuer: user:ID or group:ID, an owner (default: the logged-in user).", valueName: "typedID"))
    var issuer: String?
    @Option(help: ArgumentHelp("The command schema's name.", valueName: "name"))
    var schema: String = "guildctl"
    @Option(name: .customLong("schema-version"), help: ArgumentHelp("The schema's version.", valueName: "n"))
    var schemaVersion: Int = 1
    @Option(help: ArgumentHelp("A title (at most 50 characters).", valueName: "text"))
    var title: String?
    @Option(help: ArgumentHelp("A description (at most 200 characters).", valueName: "text"))
    var description: String?

    func validate() throws {
        if self.actions.isEmpty == (self.actionsJSON == nil) {
            throw ValidationError("Give the actions with --action (repeated) or --actions, one of the two.")
        }
    }

    /// The actions in order.
    func parsedActions() throws -> [JSONValue] {
        if let json = self.actionsJSON {
            guard case .array(let actions) = try JSONInput.read(json) else { throw ValidationError("--actions must be a JSON array.") }
            return actions
        }
        return try self.actions.map { text in
            guard let equals = text.firstIndex(of: "=") else { return .object([text: .object([:])]) }
            let params = try JSONArgument.value(String(text[text.index(after: equals)...]))
            return .object([String(text[..<equals]): params])
        }
    }

    /// The request, with the issuer defaulting to the client's user.
    func request(_ client: GuildClient) async throws -> CommandMethods.CommandRequest {
        CommandMethods.CommandRequest(
            actions: try self.parsedActions(),
            issuer: try await self.issuer.asyncOr { try await client.ownTypedID() },
            schema: self.schema,
            schemaVersion: self.schemaVersion,
            title: self.title,
            description: self.description
        )
    }
}

extension CommandCommand {
    struct Send: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "send",
            abstract: "Send a command to a thing (command.send); prints its id.",
            discussion: "Example: guildctl command send --thing th.… --action turnPower='{\"power\":true}' --action beep"
        )

        @OptionGroup var thing: ThingOptions
        @OptionGroup var request: CommandRequestOptions
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            let result = try await Runner.run(self.options) { client in
                CommandMethods.Send.Result(commandID: try await client.sendCommand(self.thing.thingID, try await self.request.request(client)))
            }
            try Output.printResult(result, json: self.options.json)
        }
    }

    struct Get: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "get", abstract: "Print a command with its state and results (command.get).")

        @OptionGroup var thing: ThingOptions
        @Option(name: .customLong("command-id"), help: ArgumentHelp("The command's id.", valueName: "id"))
        var commandID: String
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            let result = try await Runner.run(self.options) { try await $0.command(self.thing.thingID, commandID: self.commandID) }
            try Output.printResult(result, json: self.options.json)
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List a thing's commands, newest first (command.list).")

        @OptionGroup var thing: ThingOptions
        @Option(help: ArgumentHelp("At most this many commands (1-100).", valueName: "n"))
        var limit: Int?
        @Option(name: .customLong("pagination-key"), help: ArgumentHelp("Continue after a previous page.", valueName: "key"))
        var paginationKey: String?
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            let result = try await Runner.run(self.options) {
                try await $0.commands(self.thing.thingID, limit: self.limit, paginationKey: self.paginationKey)
            }
            try Output.printResult(result, json: self.options.json)
        }
    }
}
