import ArgumentParser
import GuildClient
import GuildProtocol

/// `guildctl trigger ...`: commands a thing's state sends (see protocol/things.md).
struct TriggerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trigger",
        abstract: "Make, list, enable, disable and delete triggers: commands sent when a thing's state meets a condition.",
        subcommands: [Create.self, List.self, Enable.self, Disable.self, Delete.self]
    )
}

/// Which trigger: `--thing`, `--trigger`.
struct TriggerOptions: ParsableArguments {
    @OptionGroup var thing: ThingOptions
    @Option(name: .customLong("trigger"), help: ArgumentHelp("The trigger's id (tr.…).", valueName: "triggerID"))
    var triggerID: String

    var ref: TriggerMethods.TriggerRef { .init(thingID: self.thing.thingID, triggerID: self.triggerID) }
}

extension TriggerCommand {
    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "create",
            abstract: "Make a trigger (trigger.create): the command is sent each time the condition turns true.",
            discussion: """
                The condition is a query clause on the state's fields, e.g. \
                '{"type":"range","field":"temperature","lowerLimit":30,"lowerIncluded":false}'.
                """
        )

        @OptionGroup var thing: ThingOptions
        @Option(help: ArgumentHelp("The condition as a JSON clause, or @FILE.", valueName: "json"))
        var condition: String
        @OptionGroup var request: CommandRequestOptions
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            let condition = try JSONInput.object(self.condition, "--condition")
            let result = try await Runner.run(self.options) { client in
                TriggerMethods.Create.Result(
                    triggerID: try await client.createTrigger(
                        self.thing.thingID,
                        condition: condition,
                        command: try await self.request.request(client)
                    )
                )
            }
            try Output.printResult(result, json: self.options.json)
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List a thing's triggers (trigger.list).")

        @OptionGroup var thing: ThingOptions
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            let result = try await Runner.run(self.options) { try await $0.call(TriggerMethods.List.self, .init(thingID: self.thing.thingID)) }
            try Output.printResult(result, json: self.options.json)
        }
    }

    struct Enable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "enable", abstract: "Enable a trigger (trigger.enable).")

        @OptionGroup var trigger: TriggerOptions
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            _ = try await Runner.run(self.options) { try await $0.call(TriggerMethods.Enable.self, self.trigger.ref) }
            try Output.printResult(true, json: self.options.json)
        }
    }

    struct Disable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "disable", abstract: "Disable a trigger (trigger.disable).")

        @OptionGroup var trigger: TriggerOptions
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            _ = try await Runner.run(self.options) { try await $0.call(TriggerMethods.Disable.self, self.trigger.ref) }
            try Output.printResult(true, json: self.options.json)
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "delete", abstract: "Delete a trigger (trigger.delete).")

        @OptionGroup var trigger: TriggerOptions
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            _ = try await Runner.run(self.options) { try await $0.call(TriggerMethods.Delete.self, self.trigger.ref) }
            try Output.printResult(true, json: self.options.json)
        }
    }
}
