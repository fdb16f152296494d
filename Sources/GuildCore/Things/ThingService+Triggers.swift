import GuildJSON

/// Triggers: a condition on the thing's state (the objects' query clauses) that sends a stored command when
/// it turns from false to true. The last value is stored, so neither a replay nor a restart fires again.
extension ThingService {
    /// The most triggers a thing may have.
    public static let maximumTriggers = 100

    /// The most commands a thing's triggers may send in any ``triggerFiringWindow`` (a rolling second),
    /// counted in the database from the commands' `created` times, so the bound holds across hosts sharing a
    /// PostgreSQL database. Without it, 100 triggers on one condition turn each false-to-true upload into 100
    /// commands (about 65,000 commands, 200 MB, from 1,300 uploads in 10 s). Firings past it are skipped and
    /// recorded (``TriggerSkip``).
    public static let maximumTriggerFiringsPerSecond = 10

    /// The window of ``maximumTriggerFiringsPerSecond``, in ms: a firing at `now` counts the thing's fired
    /// commands created after `now - triggerFiringWindow`.
    public static let triggerFiringWindow: Int64 = 1_000

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
            guard try tx.things.thingOwners(thingID: thingID).contains(command.issuer) else {
                throw GuildError(.permissionDenied, "the issuer \(command.issuer) is not an owner of thing \(thingID)", field: "command")
            }
            guard try tx.things.triggers(thingID: thingID).count < Self.maximumTriggers else {
                throw GuildError.invalidInput("a thing has at most \(Self.maximumTriggers) triggers", field: "thingID")
            }
            let latest = try tx.things.latestState(thingID: thingID)
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
            try tx.things.insertTrigger(trigger)
            return trigger
        }
    }

    /// A thing's triggers: for owners, the thing itself and admins.
    public func triggers(caller: Caller, thingID: String) async throws -> [ThingTrigger] {
        try await self.store.read { tx in
            _ = try Self.requireThing(thingID, tx)
            try Self.requireOwnerOrThing(caller, thingID, tx)
            return try tx.things.triggers(thingID: thingID)
        }
    }

    /// Enables or disables a trigger (owners and admins).
    public func setTrigger(caller: Caller, thingID: String, triggerID: String, enabled: Bool) async throws {
        try await self.store.write { tx in
            _ = try Self.requireThing(thingID, tx)
            try Self.requireOwner(caller, thingID, tx)
            guard var trigger = try tx.things.triggers(thingID: thingID).first(where: { $0.triggerID == triggerID }) else {
                throw GuildError(.triggerNotFound, "no trigger \(triggerID) on thing \(thingID)", field: "triggerID")
            }
            trigger.enabled = enabled
            try tx.things.updateTrigger(trigger)
        }
    }

    /// Deletes a trigger (owners and admins).
    public func deleteTrigger(caller: Caller, thingID: String, triggerID: String) async throws {
        try await self.store.write { tx in
            _ = try Self.requireThing(thingID, tx)
            try Self.requireOwner(caller, thingID, tx)
            guard try tx.things.deleteTrigger(thingID: thingID, triggerID: triggerID) else {
                throw GuildError(.triggerNotFound, "no trigger \(triggerID) on thing \(thingID)", field: "triggerID")
            }
        }
    }

    /// Evaluates the thing's triggers on a new state, in the upload's transaction: each whose condition turns
    /// true sends its command (if enabled); every changed value is stored, fired or not. A firing past
    /// ``maximumTriggerFiringsPerSecond`` or ``maximumPendingCommands`` sends nothing: the upload's skipped
    /// firings are recorded in one `triggerSkipped` event to the owners, and returned.
    ///
    /// Call it after the upload's first event: on PostgreSQL that event took the event log's lock, held to the
    /// commit, so the counts read here include every other host's firings and commands for the thing.
    static func runTriggers(
        thingID: String,
        state: [String: JSONValue],
        quota: StorageQuota,
        _ tx: any Transaction,
        _ now: Int64
    ) throws -> TriggerSkip? {
        // Read at the first firing, then kept up to date: most uploads fire nothing and read neither.
        var counts: (pending: Int, fired: Int)?
        var skipped: [String] = []
        var reason = TriggerSkip.Reason.firingRate
        for var trigger in try tx.things.triggers(thingID: thingID) {
            guard let clause = try? ObjectClause(json: trigger.condition) else { continue }
            let value = clause.matches(state)
            guard value != trigger.lastValue else { continue }
            // The value advances even when the firing is skipped, so a skipped trigger never fires later by surprise.
            trigger.lastValue = value
            try tx.things.updateTrigger(trigger)
            guard value, trigger.enabled else { continue }
            // An issuer no longer an owner sends nothing (its ownership was removed after the trigger was made).
            guard try tx.things.thingOwners(thingID: thingID).contains(trigger.command.issuer) else { continue }
            let (pending, fired) =
                try counts ?? (
                    tx.things.pendingCommandCount(thingID: thingID),
                    tx.things.triggerFiringCount(thingID: thingID, since: now - Self.triggerFiringWindow + 1)
                )
            counts = (pending, fired)
            // Once one firing is skipped the counts stay put, so every skip of an upload has the same reason.
            if pending >= Self.maximumPendingCommands {
                reason = .pendingCommands
                skipped.append(trigger.triggerID)
                continue
            }
            if fired >= Self.maximumTriggerFiringsPerSecond {
                reason = .firingRate
                skipped.append(trigger.triggerID)
                continue
            }
            if try quota.isReached(by: .thing(thingID), tx) {
                reason = .storageQuota
                skipped.append(trigger.triggerID)
                continue
            }
            let creator = try trigger.creator.flatMap { try tx.users.user(id: $0) }
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
            counts = (pending + 1, fired + 1)
        }
        guard !skipped.isEmpty else { return nil }
        let skip = TriggerSkip(triggerIDs: skipped, reason: reason, quota: quota)
        try tx.append(
            ThingEvent(
                kind: .triggerSkipped,
                thingID: thingID,
                time: now,
                audience: .owners(try tx.things.thingOwners(thingID: thingID)),
                members: [
                    "triggerIDs": .array(skipped.map { .string($0) }),
                    "reason": .string(reason.rawValue),
                    "limit": .int(skip.limit),
                ]
            )
        )
        return skip
    }
}

/// The trigger firings one state upload skipped, past a bound on what triggers may send: recorded in a
/// `triggerSkipped` event to the thing's owners, never silently lost.
public struct TriggerSkip: Sendable, Hashable {
    /// Which bound stopped them.
    public enum Reason: String, Sendable, CaseIterable {
        /// The thing has ``ThingService/maximumPendingCommands`` pending.
        case pendingCommands
        /// The thing's triggers sent ``ThingService/maximumTriggerFiringsPerSecond`` commands in the last second.
        case firingRate
        /// The thing stores as many bytes as the storage quota allows (``StorageQuota``).
        case storageQuota
    }

    /// The triggers whose condition turned true but sent nothing, in the triggers' order.
    public var triggerIDs: [String]
    public var reason: Reason
    /// The bound that was reached: commands, commands per second, or bytes.
    public var limit: Int64

    public init(triggerIDs: [String], reason: Reason, quota: StorageQuota = .standard) {
        self.triggerIDs = triggerIDs
        self.reason = reason
        switch reason {
        case .pendingCommands: self.limit = Int64(ThingService.maximumPendingCommands)
        case .firingRate: self.limit = Int64(ThingService.maximumTriggerFiringsPerSecond)
        case .storageQuota: self.limit = quota.bytes
        }
    }
}
