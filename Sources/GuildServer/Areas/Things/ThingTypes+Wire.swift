import GuildCore
import GuildJSON
import GuildProtocol

extension ThingMethods.ThingInfo {
    /// A thing's wire record.
    init(_ thing: Thing) {
        self.init(
            thingID: thing.thingID,
            vendorThingID: thing.vendorThingID,
            thingType: thing.thingType,
            firmwareVersion: thing.firmwareVersion,
            thingProperties: thing.properties,
            created: thing.created,
            modified: thing.modified,
            online: thing.online,
            onlineStatusModifiedAt: thing.onlineModified,
            disabled: thing.disabled
        )
    }
}

extension CommandRequest {
    /// A wire command request, its issuer parsed.
    init(_ wire: CommandMethods.CommandRequest) throws {
        self.init(
            actions: wire.actions,
            issuer: try ThingOwner(typedID: wire.issuer, field: "issuer"),
            schema: wire.schema,
            schemaVersion: wire.schemaVersion,
            title: wire.title,
            description: wire.description,
            metadata: wire.metadata
        )
    }

    /// The wire form.
    var wire: CommandMethods.CommandRequest {
        CommandMethods.CommandRequest(
            actions: self.actions,
            issuer: self.issuer.description,
            schema: self.schema,
            schemaVersion: self.schemaVersion,
            title: self.title,
            description: self.description,
            metadata: self.metadata
        )
    }
}

extension CommandMethods.CommandInfo {
    /// A command's wire record.
    init(_ command: ThingCommand) {
        self.init(
            commandID: command.commandID,
            thingID: command.thingID,
            issuer: command.request.issuer.description,
            actions: command.request.actions,
            actionResults: command.actionResults,
            commandState: command.state.rawValue,
            firedByTriggerID: command.firedByTriggerID,
            schema: command.request.schema,
            schemaVersion: command.request.schemaVersion,
            title: command.request.title,
            description: command.request.description,
            metadata: command.request.metadata,
            created: command.created,
            modified: command.modified
        )
    }
}

extension InstallationMethods.InstallationInfo {
    /// An installation's wire record.
    init(_ installation: Installation) {
        self.init(
            installationID: installation.installationID,
            deviceType: installation.deviceType,
            installationRegistrationID: installation.registrationID,
            development: installation.development,
            created: installation.created
        )
    }
}

extension TriggerMethods.TriggerInfo {
    /// A trigger's wire record.
    init(_ trigger: ThingTrigger) {
        var parameters: JSONValue?
        if case .notify(let given) = trigger.action { parameters = given }
        self.init(
            triggerID: trigger.triggerID,
            thingID: trigger.thingID,
            predicate: trigger.predicate.json,
            triggersWhat: trigger.action.name,
            command: trigger.action.command?.wire,
            parameters: parameters,
            title: trigger.title,
            description: trigger.description,
            enabled: trigger.enabled,
            nextFireAt: trigger.nextFire,
            created: trigger.created,
            modified: trigger.modified,
            condition: trigger.predicate.condition
        )
    }
}

extension TriggerMethods.TriggerResult {
    /// A firing's wire record.
    init(_ firing: TriggerFiring) {
        self.init(
            firedAt: firing.firedAt,
            dueAt: firing.dueAt,
            eventSource: firing.cause,
            outcome: firing.outcome.rawValue,
            commandID: firing.commandID,
            reason: firing.reason
        )
    }
}

extension TriggerMethods.TriggerSpec {
    /// The predicate given: `predicate` (Thing-IF's object), or `condition` as a `STATES` predicate with
    /// `CONDITION_FALSE_TO_TRUE`; nil when neither is (patch: unchanged). Both at once is `invalidInput`.
    func predicate(_ things: ThingService) throws(GuildError) -> TriggerPredicate? {
        switch (self.predicate, self.condition) {
        case (let predicate?, nil): return try things.predicate(predicate)
        case (nil, let condition?): return try TriggerPredicate.condition(condition)
        case (nil, nil): return nil
        case (.some, .some): throw .invalidInput("give predicate or condition, not both", field: "condition")
        }
    }

    /// The action given: `triggersWhat` (default `COMMAND` when `command` is given) with `command` or
    /// `parameters`; nil when none is (patch: unchanged).
    func action() throws -> TriggerAction? {
        let what = self.triggersWhat ?? (self.command != nil ? "COMMAND" : (self.parameters != nil ? "NOTIFY" : nil))
        switch what {
        case nil:
            return nil
        case "COMMAND":
            guard let command = self.command else { throw GuildError.invalidInput("COMMAND needs a command", field: "command") }
            guard self.parameters == nil else { throw GuildError.invalidInput("parameters go with NOTIFY", field: "parameters") }
            return .command(try CommandRequest(command))
        case "NOTIFY":
            guard self.command == nil else { throw GuildError.invalidInput("NOTIFY sends no command", field: "command") }
            return .notify(parameters: self.parameters)
        default:
            throw GuildError.invalidInput("triggersWhat is COMMAND or NOTIFY", field: "triggersWhat")
        }
    }
}

extension ThingMethods.StateAggregationSpec {
    /// The aggregation as Thing-IF writes it, for `StateAggregation(json:)` to check.
    var json: JSONValue {
        var members: [String: JSONValue] = ["type": .string(self.type)]
        if let field = self.field { members["field"] = .string(field) }
        if let name = self.putAggregationInto { members["putAggregationInto"] = .string(name) }
        return .object(members)
    }
}

extension ThingMethods.StateGroup {
    /// A group of a grouped history: with the query's aggregations and their values, or without any, its states.
    init(_ group: StateHistoryGroup, _ query: GroupedStateQuery) {
        let range = ThingMethods.TimeRange(from: group.from, to: group.to)
        guard !query.aggregations.isEmpty else {
            self.init(range: range, objects: group.states.map { .init(state: $0.state, timestamp: $0.timestamp) })
            return
        }
        let values = zip(query.aggregations, group.values).map { aggregation, value in
            ThingMethods.StateAggregationValue(
                type: aggregation.kind.rawValue,
                field: aggregation.field,
                putAggregationInto: aggregation.name,
                value: value
            )
        }
        self.init(range: range, aggregations: values)
    }
}
