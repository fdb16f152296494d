import Foundation
import GuildCore
import GuildJSON
import GuildProtocol

extension MethodRegistry {
    /// `thing.*`, `user.ownedThings`, `command.*`, `installation.*` and `trigger.*`.
    mutating func registerThingMethods(_ things: ThingService, presence: ThingPresence, hub: EventHub) {
        self.register(ThingMethods.Onboard.self) { params, context in
            let (thing, token) = try await things.onboard(
                caller: context.caller,
                vendorThingID: params.vendorThingID,
                password: params.thingPassword,
                owner: try ThingOwner(typedID: params.owner, field: "owner"),
                thingType: params.thingType,
                firmwareVersion: params.firmwareVersion,
                properties: params.thingProperties
            )
            return .init(thingID: thing.thingID, accessToken: token.text)
        }
        self.register(ThingMethods.Get.self) { params, context in
            ThingMethods.ThingInfo(try await things.get(caller: context.caller, thingID: params.thingID))
        }
        self.register(ThingMethods.Find.self) { params, context in
            ThingMethods.ThingInfo(try await things.find(caller: context.caller, vendorThingID: params.vendorThingID))
        }
        self.register(ThingMethods.Update.self) { params, context in
            ThingMethods.ThingInfo(
                try await things.update(
                    caller: context.caller,
                    thingID: params.thingID,
                    thingType: params.thingType,
                    firmwareVersion: params.firmwareVersion,
                    properties: params.thingProperties
                )
            )
        }
        self.register(ThingMethods.Disable.self) { params, context in
            if try await things.setDisabled(caller: context.caller, thingID: params.thingID, disabled: true) {
                // Committed: the thing's connections go unbound now (not at their next call), and their
                // subscriptions end, so no command reaches it while it is disabled; its commands wait.
                for connection in presence.unbind(thingID: params.thingID) {
                    hub.end(subscriptionsOf: connection, principal: params.thingID, reason: SubscriptionEnded.thingDisabled)
                }
            }
            return true
        }
        self.register(ThingMethods.Enable.self) { params, context in
            try await things.setDisabled(caller: context.caller, thingID: params.thingID, disabled: false)
            return true
        }
        self.register(ThingMethods.Delete.self) { params, context in
            try await things.delete(caller: context.caller, thingID: params.thingID)
            return true
        }
        self.register(ThingMethods.SetPassword.self) { params, context in
            try await things.setPassword(caller: context.caller, thingID: params.thingID, password: params.thingPassword)
            return true
        }
        self.register(ThingMethods.AddOwner.self) { params, context in
            try await things.addOwner(
                caller: context.caller,
                thingID: params.thingID,
                owner: try ThingOwner(typedID: params.owner, field: "owner"),
                password: params.thingPassword
            )
            return true
        }
        self.register(ThingMethods.RemoveOwner.self) { params, context in
            try await things.removeOwner(
                caller: context.caller,
                thingID: params.thingID,
                owner: try ThingOwner(typedID: params.owner, field: "owner")
            )
            return true
        }
        self.register(ThingMethods.Owners.self) { params, context in
            .init(owners: try await things.owners(caller: context.caller, thingID: params.thingID).map(\.description))
        }
        self.register(ThingMethods.OwnedThings.self) { params, context in
            .init(things: try await things.ownedThings(caller: context.caller, userID: params.userID).map(ThingMethods.ThingInfo.init))
        }
        self.register(ThingMethods.PutState.self) { params, context in
            let stored = try await things.putState(caller: context.caller, thingID: params.thingID, state: params.state, timestamp: params.timestamp)
            if let skipped = stored.skipped { TriggerMetrics.skipped(skipped) }
            return .init(created: stored.created, timestamp: stored.timestamp)
        }
        self.register(ThingMethods.GetState.self) { params, context in
            let state = try await things.latestState(caller: context.caller, thingID: params.thingID)
            return .init(state: state.state, timestamp: state.timestamp)
        }
        self.register(ThingMethods.StateHistory.self) { params, context in
            let grouped = try GroupedStateQuery.parse(
                grouped: params.grouped,
                from: params.from,
                to: params.to,
                interval: params.interval,
                aggregations: params.aggregations?.map(\.json),
                limit: params.limit,
                paginationKey: params.paginationKey
            )
            if let grouped {
                let groups = try await things.groupedStateHistory(caller: context.caller, thingID: params.thingID, query: grouped)
                return .init(results: [], nextPaginationKey: nil, groupedResults: groups.map { ThingMethods.StateGroup($0, grouped) })
            }
            let page = try await things.stateHistory(
                caller: context.caller,
                thingID: params.thingID,
                from: params.from,
                to: params.to,
                limit: params.limit,
                paginationKey: params.paginationKey
            )
            return .init(results: page.states.map { .init(state: $0.state, timestamp: $0.timestamp) }, nextPaginationKey: page.nextPaginationKey)
        }
        self.registerCommandMethods(things)
    }

    private mutating func registerCommandMethods(_ things: ThingService) {
        self.register(CommandMethods.Send.self) { params, context in
            let command = try await things.send(caller: context.caller, thingID: params.thingID, request: try CommandRequest(params.request))
            return .init(commandID: command.commandID)
        }
        self.register(CommandMethods.Get.self) { params, context in
            CommandMethods.CommandInfo(try await things.command(caller: context.caller, thingID: params.thingID, commandID: params.commandID))
        }
        self.register(CommandMethods.List.self) { params, context in
            let page = try await things.commands(
                caller: context.caller,
                thingID: params.thingID,
                limit: params.limit,
                paginationKey: params.paginationKey
            )
            return .init(commands: page.commands.map(CommandMethods.CommandInfo.init), nextPaginationKey: page.nextPaginationKey)
        }
        self.register(CommandMethods.PutResults.self) { params, context in
            let state = try await things.putResults(
                caller: context.caller,
                thingID: params.thingID,
                commandID: params.commandID,
                results: params.actionResults
            )
            return .init(commandState: state.rawValue)
        }
        self.register(InstallationMethods.Register.self) { params, context in
            let installation = try await things.registerInstallation(
                caller: context.caller,
                deviceType: params.deviceType,
                registrationID: params.installationRegistrationID,
                development: params.development ?? false
            )
            context.connection.installationID = installation.installationID
            return InstallationMethods.InstallationInfo(installation)
        }
        self.register(InstallationMethods.List.self) { params, context in
            let page = try await things.installations(caller: context.caller, limit: params.limit, paginationKey: params.paginationKey)
            return .init(installations: page.installations.map(InstallationMethods.InstallationInfo.init), nextPaginationKey: page.nextPaginationKey)
        }
        self.register(InstallationMethods.Delete.self) { params, context in
            try await things.deleteInstallation(caller: context.caller, installationID: params.installationID)
            if context.connection.installationID == params.installationID { context.connection.installationID = nil }
            return true
        }
        self.register(TriggerMethods.Create.self) { params, context in
            let spec = params.spec
            guard let predicate = try spec.predicate(things) else {
                throw GuildError.invalidInput("a trigger needs a predicate (or a condition)", field: "predicate")
            }
            guard let action = try spec.action() else {
                throw GuildError.invalidInput("a trigger needs a command (COMMAND) or triggersWhat NOTIFY", field: "triggersWhat")
            }
            let trigger = try await things.createTrigger(
                caller: context.caller,
                thingID: params.thingID,
                predicate: predicate,
                action: action,
                title: spec.title,
                description: spec.description
            )
            var timeZone: String?
            if case .schedule(let schedule) = trigger.predicate { timeZone = schedule.timeZoneName }
            return .init(triggerID: trigger.triggerID, nextFireAt: trigger.nextFire, timeZone: timeZone)
        }
        self.register(TriggerMethods.Patch.self) { params, context in
            let spec = params.spec
            let trigger = try await things.patchTrigger(
                caller: context.caller,
                thingID: params.thingID,
                triggerID: params.triggerID,
                predicate: try spec.predicate(things),
                action: try spec.action(),
                title: spec.title,
                description: spec.description
            )
            return .init(trigger)
        }
        self.register(TriggerMethods.Get.self) { params, context in
            .init(try await things.trigger(caller: context.caller, thingID: params.thingID, triggerID: params.triggerID))
        }
        self.register(TriggerMethods.Results.self) { params, context in
            let page = try await things.triggerResults(
                caller: context.caller,
                thingID: params.thingID,
                triggerID: params.triggerID,
                limit: params.limit,
                paginationKey: params.cursor
            )
            return .init(results: page.results.map(TriggerMethods.TriggerResult.init), nextCursor: page.nextPaginationKey)
        }
        self.register(TriggerMethods.List.self) { params, context in
            .init(triggers: try await things.triggers(caller: context.caller, thingID: params.thingID).map(TriggerMethods.TriggerInfo.init))
        }
        self.register(TriggerMethods.Enable.self) { params, context in
            try await things.setTrigger(caller: context.caller, thingID: params.thingID, triggerID: params.triggerID, enabled: true)
            return true
        }
        self.register(TriggerMethods.Disable.self) { params, context in
            try await things.setTrigger(caller: context.caller, thingID: params.thingID, triggerID: params.triggerID, enabled: false)
            return true
        }
        self.register(TriggerMethods.Delete.self) { params, context in
            try await things.deleteTrigger(caller: context.caller, thingID: params.thingID, triggerID: params.triggerID)
            return true
        }
    }
}
