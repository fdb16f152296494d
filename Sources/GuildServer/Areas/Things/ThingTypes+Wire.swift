import GuildCore
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
        self.init(
            triggerID: trigger.triggerID,
            thingID: trigger.thingID,
            condition: trigger.condition,
            command: trigger.command.wire,
            enabled: trigger.enabled,
            created: trigger.created
        )
    }
}
