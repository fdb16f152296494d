import GuildJSON

/// Triggers: a condition on the thing's state (the objects' query clauses) that sends a stored command when
/// it turns from false to true. The last value is stored, so neither a replay nor a restart fires again.
extension ThingService {
    /// The most triggers a thing may have.
    public static let maximumTriggers = 100

    /// Registers a trigger (an owner or admin; the command's issuer must be an owner the caller acts for). Its
    /// last value starts as the condition's value on the latest state, so it fires on the next transition.
    public func createTrigger(caller: Caller, thingID: String, condition: JSONValue, command: CommandRequest) async throws -> ThingTrigger {
        let clause = try ObjectClause(json: condition, field: "condition")
        try Self.check(command)
        let now = self.now()
        return try await self.store.write { tx in
            _ = try Self.requireThing(thingID, tx)
            try Self.requireOwner(caller, thingID, tx)
            try Self.requireOwnerRights(caller, command.issuer, tx)
            guard try tx.thingOwners(thingID: thingID).contains(command.issuer) else {
                throw GuildError(.permissionDenied, "the issuer \(command.issuer) is not an owner of thing \(thingID)", field: "command")
            }
            guard try tx.triggers(thingID: thingID).count < Self.maximumTriggers else {
                throw GuildError.invalidInput("a thing has at most \(Self.maximumTriggers) triggers", field: "thingID")
            }
            let latest = try tx.latestState(thingID: thingID)
            let trigger = ThingTrigger(
                triggerID: Self.newID(prefix: "tr."),
                thingID: thingID,
                condition: condition,
                command: command,
                enabled: true,
                lastValue: latest.map { clause.matches($0.state) } ?? false,
                creator: caller.session?.user.id,
                created: now
            )
            try tx.insertTrigger(trigger)
            return trigger
        }
    }

    /// A thing's triggers: for owners, the thing itself and admins.
    public func triggers(caller: Caller, thingID: String) async throws -> [ThingTrigger] {
        try await self.store.read { tx in
            _ = try Self.requireThing(thingID, tx)
            try Self.requireOwnerOrThing(caller, thingID, tx)
            return try tx.triggers(thingID: thingID)
        }
    }

    /// Enables or disables a trigger (owners and admins).
    public func setTrigger(caller: Caller, thingID: String, triggerID: String, enabled: Bool) async throws {
        try await self.store.write { tx in
            _ = try Self.requireThing(thingID, tx)
            try Self.requireOwner(caller, thingID, tx)
            guard var trigger = try tx.triggers(thingID: thingID).first(where: { $0.triggerID == triggerID }) else {
                throw GuildError(.triggerNotFound, "no trigger \(triggerID) on thing \(thingID)", field: "triggerID")
            }
            trigger.enabled = enabled
            try tx.updateTrigger(trigger)
        }
    }

    /// Deletes a trigger (owners and admins).
    public func deleteTrigger(caller: Caller, thingID: String, triggerID: String) async throws {
        try await self.store.write { tx in
            _ = try Self.requireThing(thingID, tx)
            try Self.requireOwner(caller, thingID, tx)
            guard try tx.deleteTrigger(thingID: thingID, triggerID: triggerID) else {
                throw GuildError(.triggerNotFound, "no trigger \(triggerID) on thing \(thingID)", field: "triggerID")
            }
        }
    }

    /// Evaluates the thing's triggers on a new state, in the upload's transaction: each whose condition turns
    /// true sends its command (if enabled); every changed value is stored.
    static func runTriggers(thingID: String, state: [String: JSONValue], _ tx: any Transaction, _ now: Int64) throws {
        for var trigger in try tx.triggers(thingID: thingID) {
            guard let clause = try? ObjectClause(json: trigger.condition) else { continue }
            let value = clause.matches(state)
            guard value != trigger.lastValue else { continue }
            trigger.lastValue = value
            try tx.updateTrigger(trigger)
            guard value, trigger.enabled else { continue }
            // An issuer no longer an owner sends nothing (its ownership was removed after the trigger was made).
            guard try tx.thingOwners(thingID: thingID).contains(trigger.command.issuer) else { continue }
            let creator = try trigger.creator.flatMap { try tx.user(id: $0) }
            try Self.store(
                ThingCommand(
                    commandID: RandomID.timeOrderedHex(now: now),
                    thingID: thingID,
                    request: trigger.command,
                    senderUserID: creator?.id,
                    senderInstallationID: nil,
                    senderIsPseudo: creator?.isPseudo ?? false,
                    firedByTriggerID: trigger.triggerID,
                    created: now,
                    modified: now
                ),
                tx
            )
        }
    }
}
