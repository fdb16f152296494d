import ArgumentParser
import Foundation
import GuildClient
import GuildJSON
import GuildProtocol

/// `guildctl trigger ...`: Thing-IF's triggers on a thing (see protocol/things.md).
struct TriggerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trigger",
        abstract: "Make, change, show, list, enable, disable and delete triggers; list what they did.",
        subcommands: [Create.self, Notify.self, Get.self, Patch.self, Results.self, List.self, Enable.self, Disable.self, Delete.self]
    )
}

/// Which trigger: `--thing`, `--trigger`.
struct TriggerOptions: ParsableArguments {
    @OptionGroup var thing: ThingOptions
    @Option(name: .customLong("trigger"), help: ArgumentHelp("The trigger's id (tr.…).", valueName: "triggerID"))
    var triggerID: String

    var ref: TriggerMethods.TriggerRef { .init(thingID: self.thing.thingID, triggerID: self.triggerID) }
}

/// When a trigger fires: a state condition, a cron schedule or a single time (at most one of them).
struct TriggerPredicateOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Fire on the thing's state: a JSON query clause on its fields, or @FILE.", valueName: "json"))
    var condition: String?
    @Option(
        help: ArgumentHelp(
            "With --condition: CONDITION_TRUE, CONDITION_FALSE_TO_TRUE (default) or CONDITION_CHANGED.",
            valueName: "mode"
        )
    )
    var when: String?
    @Option(help: ArgumentHelp("Fire on a schedule: five cron fields, e.g. '0 7 * * MON-FRI'.", valueName: "cron"))
    var schedule: String?
    @Option(name: .customLong("time-zone"), help: ArgumentHelp("With --schedule: an IANA zone (default: the daemon's).", valueName: "zone"))
    var timeZone: String?
    @Option(help: ArgumentHelp("Fire once: ms since 1970, or an ISO 8601 time such as 2026-12-24T18:00:00Z.", valueName: "time"))
    var at: String?
    @Option(name: .customLong("trigger-title"), help: ArgumentHelp("The trigger's title (at most 50 characters).", valueName: "text"))
    var title: String?
    @Option(
        name: .customLong("trigger-description"),
        help: ArgumentHelp("The trigger's description (at most 200 characters).", valueName: "text")
    )
    var description: String?

    func validate() throws {
        let given = [self.condition, self.schedule, self.at].compactMap { $0 }
        guard given.count <= 1 else { throw ValidationError("Give one of --condition, --schedule and --at.") }
        if self.when != nil, self.condition == nil { throw ValidationError("--when goes with --condition.") }
        if self.timeZone != nil, self.schedule == nil { throw ValidationError("--time-zone goes with --schedule.") }
    }

    /// The predicate given, as Thing-IF's object; nil when none is.
    func predicate() throws -> JSONValue? {
        if let condition = self.condition {
            var predicate: [String: JSONValue] = ["eventSource": "STATES", "condition": try JSONInput.object(condition, "--condition")]
            if let when = self.when { predicate["triggersWhen"] = .string(when.uppercased()) }
            return .object(predicate)
        }
        if let schedule = self.schedule {
            var predicate: [String: JSONValue] = ["eventSource": "SCHEDULE", "schedule": .string(schedule)]
            if let zone = self.timeZone { predicate["timeZone"] = .string(zone) }
            return .object(predicate)
        }
        if let at = self.at {
            return ["eventSource": "SCHEDULE_ONCE", "scheduleAt": .int(try Self.milliseconds(at))]
        }
        return nil
    }

    /// Creates a trigger on `thingID` that fires as these options say, with the action `action` gives (the
    /// predicate, title and description are filled in here), and prints the reply.
    func create(
        _ thingID: String,
        _ options: GlobalOptions,
        action: (GuildClient) async throws -> TriggerMethods.TriggerSpec
    ) async throws {
        guard let predicate = try self.predicate() else {
            throw ValidationError("Give when it fires: --condition, --schedule or --at.")
        }
        let result = try await Runner.run(options) { client in
            var spec = try await action(client)
            spec.predicate = predicate
            spec.title = self.title
            spec.description = self.description
            return try await client.createTrigger(thingID, spec)
        }
        try Output.printResult(result, json: options.json)
    }

    /// `--at`: ms since 1970, or an ISO 8601 time with its offset.
    static func milliseconds(_ text: String) throws -> Int64 {
        if let number = Int64(text) { return number }
        let formatter = ISO8601DateFormatter()
        if let date = formatter.date(from: text) { return Int64((date.timeIntervalSince1970 * 1000).rounded()) }
        formatter.formatOptions.insert(.withFractionalSeconds)
        if let date = formatter.date(from: text) { return Int64((date.timeIntervalSince1970 * 1000).rounded()) }
        throw ValidationError("--at is ms since 1970 or an ISO 8601 time such as 2026-12-24T18:00:00Z")
    }
}

extension TriggerCommand {
    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "create",
            abstract: "Make a trigger that sends a command (trigger.create, COMMAND).",
            discussion: """
                When: --condition, a query clause on the state's fields, e.g. \
                '{"type":"range","field":"temperature","lowerLimit":30,"lowerIncluded":false}' (with --when for the \
                mode); --schedule '0 7 * * *' (with --time-zone); or --at, once.
                """
        )

        @OptionGroup var thing: ThingOptions
        @OptionGroup var predicate: TriggerPredicateOptions
        @OptionGroup var request: CommandRequestOptions
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            try await self.predicate.create(self.thing.thingID, self.options) { client in
                .init(command: try await self.request.request(client))
            }
        }
    }

    struct Notify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "notify",
            abstract: "Make a trigger that notifies subscribed programs (trigger.create, NOTIFY: a triggerFired event).",
            discussion: "When: as for create. The owners and the trigger's creator receive each triggerFired event, with --parameters."
        )

        @OptionGroup var thing: ThingOptions
        @OptionGroup var predicate: TriggerPredicateOptions
        @Option(help: ArgumentHelp("A JSON object passed on in each event, or @FILE.", valueName: "json"))
        var parameters: String?
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            let parameters = try self.parameters.map { try JSONInput.object($0, "--parameters") }
            try await self.predicate.create(self.thing.thingID, self.options) { _ in
                .init(triggersWhat: "NOTIFY", parameters: parameters)
            }
        }
    }

    struct Get: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "get", abstract: "Show a trigger (trigger.get).")

        @OptionGroup var trigger: TriggerOptions
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            let result = try await Runner.run(self.options) { try await $0.trigger(self.trigger.thing.thingID, self.trigger.triggerID) }
            try Output.printResult(result, json: self.options.json)
        }
    }

    struct Patch: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "patch",
            abstract: "Change a trigger's time or condition, title, description or parameters (trigger.patch).",
            discussion: "What is given replaces what the trigger had; an empty --trigger-title or --trigger-description removes it."
        )

        @OptionGroup var trigger: TriggerOptions
        @OptionGroup var predicate: TriggerPredicateOptions
        @Option(help: ArgumentHelp("New parameters for a NOTIFY trigger: a JSON object, or @FILE.", valueName: "json"))
        var parameters: String?
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            let predicate = try self.predicate.predicate()
            let parameters = try self.parameters.map { try JSONInput.object($0, "--parameters") }
            let result = try await Runner.run(self.options) { client in
                try await client.patchTrigger(
                    self.trigger.thing.thingID,
                    self.trigger.triggerID,
                    .init(
                        predicate: predicate,
                        triggersWhat: parameters == nil ? nil : "NOTIFY",
                        parameters: parameters,
                        title: self.predicate.title,
                        description: self.predicate.description
                    )
                )
            }
            try Output.printResult(result, json: self.options.json)
        }
    }

    struct Results: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "results",
            abstract: "List what a trigger did, newest first (trigger.results): when, why, the command sent or why none was."
        )

        @OptionGroup var trigger: TriggerOptions
        @Option(help: ArgumentHelp("At most this many (1-100).", valueName: "n"))
        var limit: Int?
        @Option(help: ArgumentHelp("nextCursor of the previous page.", valueName: "cursor"))
        var cursor: String?
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            let result = try await Runner.run(self.options) {
                try await $0.triggerResults(self.trigger.thing.thingID, self.trigger.triggerID, limit: self.limit, cursor: self.cursor)
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
