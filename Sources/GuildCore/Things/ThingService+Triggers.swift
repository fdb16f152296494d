import GuildJSON

/// Triggers (Thing-IF's): a predicate (a condition on the thing's uploaded states with its `triggersWhen`, a cron
/// schedule or a single time) and an action (a command to the thing, or a `triggerFired` event). A state
/// condition is evaluated in the upload's transaction, against the state before it for its previous value; a
/// schedule's next due time is stored and advanced in the transaction that fires, so neither a replay nor a
/// restart fires twice. Every firing is kept in the trigger's results.
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

    /// The firings `trigger.results` keeps per trigger: the oldest past it are dropped (see ``record(_:_:)``).
    public static let maximumTriggerResults = 1_000

    /// The largest `parameters` of a `NOTIFY` action, in bytes of its JSON.
    public static let maximumNotifyParametersBytes = 10_240

    /// The most results `trigger.results` returns at once.
    public static let maximumTriggerResultPage = 100

    /// Registers a trigger (an owner or admin). A `COMMAND` action's issuer must be an owner the caller acts
    /// for. A state predicate compares each upload with the state before it, so `CONDITION_FALSE_TO_TRUE` and
    /// `CONDITION_CHANGED` fire on the next transition after the trigger is made; a schedule starts at its first
    /// due time after now (a single time must be in the future).
    public func createTrigger(
        caller: Caller,
        thingID: String,
        predicate: TriggerPredicate,
        action: TriggerAction,
        title: String? = nil,
        description: String? = nil
    ) async throws -> ThingTrigger {
        try Self.checkTriggerTexts(title: title, description: description)
        try Self.check(action)
        let now = self.now()
        let nextFire = try Self.firstDue(predicate, now: now)
        let trigger = try await self.store.write { tx in
            _ = try Self.requireThing(thingID, tx)
            try Self.requireOwner(caller, thingID, tx)
            try Self.requireActionRights(caller, action, thingID, tx)
            guard try tx.things.triggerCount(thingID: thingID) < Self.maximumTriggers else {
                throw GuildError.invalidInput("a thing has at most \(Self.maximumTriggers) triggers", field: "thingID")
            }
            let trigger = ThingTrigger(
                triggerID: Self.newID(prefix: "tr."),
                thingID: thingID,
                predicate: predicate,
                action: action,
                title: title,
                description: description,
                enabled: true,
                nextFire: nextFire,
                creator: caller.session?.user.id,
                created: now
            )
            try tx.things.insertTrigger(trigger)
            return trigger
        }
        if trigger.nextFire != nil { self.scheduleWake?.poke() }
        return trigger
    }

    /// The first triggers' form: sends `command` when `condition` on the thing's state turns from false to true.
    public func createTrigger(caller: Caller, thingID: String, condition: JSONValue, command: CommandRequest) async throws -> ThingTrigger {
        try await self.createTrigger(
            caller: caller,
            thingID: thingID,
            predicate: try TriggerPredicate.condition(condition),
            action: .command(command)
        )
    }

    /// A predicate as Thing-IF's object gives it; a schedule without a time zone is in the daemon's.
    public func predicate(_ json: JSONValue) throws(GuildError) -> TriggerPredicate {
        try TriggerPredicate(json: json, defaultTimeZone: self.timeZone, defaultTimeZoneName: self.timeZoneName)
    }

    /// Changes a trigger's predicate, action, title or description (owners and admins); what is nil stays, and
    /// an empty title or description removes it. A new predicate starts afresh (as at creation); the trigger's
    /// firing history stays.
    public func patchTrigger(
        caller: Caller,
        thingID: String,
        triggerID: String,
        predicate: TriggerPredicate?,
        action: TriggerAction?,
        title: String?,
        description: String?
    ) async throws -> ThingTrigger {
        try Self.checkTriggerTexts(title: title, description: description)
        if let action { try Self.check(action) }
        let now = self.now()
        let nextFire = try predicate.map { predicate throws(GuildError) in try Self.firstDue(predicate, now: now) }
        let trigger = try await self.store.write { tx in
            _ = try Self.requireThing(thingID, tx)
            try Self.requireOwner(caller, thingID, tx)
            var trigger = try Self.requireTrigger(thingID, triggerID, tx)
            if let action {
                try Self.requireActionRights(caller, action, thingID, tx)
                trigger.action = action
            }
            if let predicate {
                trigger.predicate = predicate
                trigger.nextFire = nextFire ?? nil
            }
            if let title { trigger.title = title.isEmpty ? nil : title }
            if let description { trigger.description = description.isEmpty ? nil : description }
            trigger.modified = now
            try tx.things.updateTrigger(trigger)
            return trigger
        }
        if predicate != nil { self.scheduleWake?.poke() }
        return trigger
    }

    /// A trigger: for owners, the thing itself and admins.
    public func trigger(caller: Caller, thingID: String, triggerID: String) async throws -> ThingTrigger {
        try await self.store.read { tx in
            _ = try Self.requireThing(thingID, tx)
            try Self.requireOwnerOrThing(caller, thingID, tx)
            return try Self.requireTrigger(thingID, triggerID, tx)
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

    /// A page of a trigger's firings, newest first (for owners, the thing itself and admins); `paginationKey`
    /// continues after the previous page.
    public func triggerResults(
        caller: Caller,
        thingID: String,
        triggerID: String,
        limit: Int?,
        paginationKey: String?
    ) async throws -> (results: [TriggerFiring], nextPaginationKey: String?) {
        let limit = try Self.pageLimit(limit, maximum: Self.maximumTriggerResultPage)
        let binding = PageBinding("trigger.results", caller: caller, [thingID, triggerID])
        let before = try paginationKey.map { key throws(GuildError) in try self.position(key, for: binding, field: "cursor") }
        return try await self.store.read { tx in
            _ = try Self.requireThing(thingID, tx)
            try Self.requireOwnerOrThing(caller, thingID, tx)
            _ = try Self.requireTrigger(thingID, triggerID, tx)
            let page = try tx.things.triggerFirings(triggerID: triggerID, before: before, limit: limit + 1)
            let next = page.count > limit ? self.key(page[limit - 1].position, for: binding) : nil
            return (page.prefix(limit).map(\.firing), next)
        }
    }

    /// Enables or disables a trigger (owners and admins). A schedule enabled again is next due at its first
    /// time after now: what came due while it was disabled does not fire.
    public func setTrigger(caller: Caller, thingID: String, triggerID: String, enabled: Bool) async throws {
        let now = self.now()
        let schedule = try await self.store.write { tx in
            _ = try Self.requireThing(thingID, tx)
            try Self.requireOwner(caller, thingID, tx)
            var trigger = try Self.requireTrigger(thingID, triggerID, tx)
            if enabled, !trigger.enabled, trigger.predicate.isSchedule {
                trigger.nextFire = trigger.predicate.nextFire(after: now)
            }
            trigger.enabled = enabled
            try tx.things.updateTrigger(trigger)
            return trigger.predicate.isSchedule
        }
        if schedule { self.scheduleWake?.poke() }
    }

    /// Deletes a trigger with its firing history (owners and admins).
    public func deleteTrigger(caller: Caller, thingID: String, triggerID: String) async throws {
        try await self.store.write { tx in
            _ = try Self.requireThing(thingID, tx)
            try Self.requireOwner(caller, thingID, tx)
            guard try tx.things.deleteTrigger(thingID: thingID, triggerID: triggerID) else {
                throw GuildError(.triggerNotFound, "no trigger \(triggerID) on thing \(thingID)", field: "triggerID")
            }
        }
    }

    // MARK: - Rules

    /// A trigger of the thing, or `triggerNotFound`.
    static func requireTrigger(_ thingID: String, _ triggerID: String, _ tx: any Transaction) throws -> ThingTrigger {
        guard let trigger = try tx.things.trigger(thingID: thingID, triggerID: triggerID) else {
            throw GuildError(.triggerNotFound, "no trigger \(triggerID) on thing \(thingID)", field: "triggerID")
        }
        return trigger
    }

    /// A trigger's title (at most 50 characters) and description (at most 200), Thing-IF's limits.
    static func checkTriggerTexts(title: String?, description: String?) throws(GuildError) {
        if let title, title.count > ThingRules.maximumTitleLength {
            throw .invalidInput("a title is at most \(ThingRules.maximumTitleLength) characters", field: "title")
        }
        if let description, description.count > ThingRules.maximumDescriptionLength {
            throw .invalidInput("a description is at most \(ThingRules.maximumDescriptionLength) characters", field: "description")
        }
    }

    /// An action's own rules: a command's actions and texts, a notification's parameters.
    static func check(_ action: TriggerAction) throws(GuildError) {
        switch action {
        case .command(let request):
            try Self.check(request)
        case .notify(let parameters):
            guard let parameters else { return }
            guard let members = parameters.objectValue else {
                throw .invalidInput("parameters is an object", field: "parameters")
            }
            guard ThingRules.jsonSize(members) <= Self.maximumNotifyParametersBytes else {
                throw .invalidInput("parameters are at most \(Self.maximumNotifyParametersBytes) bytes of JSON", field: "parameters")
            }
        }
    }

    /// A command's issuer must be an owner of the thing that the caller acts for.
    static func requireActionRights(_ caller: Caller, _ action: TriggerAction, _ thingID: String, _ tx: any Transaction) throws {
        guard case .command(let command) = action else { return }
        try Self.requireOwnerRights(caller, command.issuer, tx)
        guard try tx.things.thingOwners(thingID: thingID).contains(command.issuer) else {
            throw GuildError(.permissionDenied, "the issuer \(command.issuer) is not an owner of thing \(thingID)", field: "command")
        }
    }

    /// A schedule's first due time after `now`; nil for a state predicate. A single time not in the future is
    /// refused.
    static func firstDue(_ predicate: TriggerPredicate, now: Int64) throws(GuildError) -> Int64? {
        switch predicate {
        case .states:
            return nil
        case .scheduleOnce(let at):
            guard at > now else { throw .invalidInput("scheduleAt is not in the future", field: "predicate.scheduleAt") }
            return at
        case .schedule(let schedule):
            guard let next = schedule.nextFire(after: now) else {
                throw .invalidInput("the schedule has no time within nine years", field: "predicate.schedule")
            }
            return next
        }
    }

    /// Evaluates the thing's state triggers on a new state (stored as row `stateID`), in the upload's
    /// transaction: each enabled one fires as its `triggersWhen` says, its condition's previous value being its
    /// value on the thing's newest other state (false when there is none), so a condition's value is never
    /// stored and an upload writes nothing for a trigger that does not fire. A command past
    /// ``maximumTriggerFiringsPerSecond``, ``maximumPendingCommands`` or the storage quota is not sent: the
    /// upload's skipped firings are recorded in one `triggerSkipped` event to the owners, and returned. Every
    /// firing, skipped or not, is in the trigger's results.
    ///
    /// The triggers come from `sets` when the thing's trigger revision is the one kept there (see
    /// ``ThingTriggerSets``), else from their rows, compiled through `conditions` and kept.
    ///
    /// Call it after the upload's first event: on PostgreSQL that event took the event log's lock, held to the
    /// commit, so the newest other state, and the counts read here, include every other host's uploads, firings
    /// and commands for the thing.
    static func runTriggers(
        thingID: String,
        state: [String: JSONValue],
        stateID: Int64,
        conditions: TriggerConditions,
        sets: ThingTriggerSets,
        quota: StorageQuota,
        _ tx: any Transaction,
        _ now: Int64
    ) throws -> TriggerSkip? {
        let triggers = try Self.stateTriggers(thingID: thingID, conditions: conditions, sets: sets, tx)
        guard !triggers.isEmpty else { return nil }
        // Read at the first trigger that needs them, then kept: most uploads fire nothing and read none of them.
        var previous: [String: JSONValue]?
        var previousRead = false
        var counts: FiringCounts?
        var owners: [ThingOwner]?
        var skipped: [String] = []
        var reason = TriggerSkip.Reason.firingRate
        for candidate in triggers where candidate.enabled {
            let mode = candidate.condition.mode
            let value = candidate.condition.clause.matches(state)
            // `CONDITION_TRUE` needs no previous value, nor does `CONDITION_FALSE_TO_TRUE` when the condition is false.
            let fires: Bool
            switch mode {
            case .conditionTrue: fires = value
            case .conditionFalseToTrue where !value: fires = false
            case .conditionFalseToTrue, .conditionChanged:
                if !previousRead {
                    previous = try tx.things.latestState(thingID: thingID, excluding: stateID)?.state
                    previousRead = true
                }
                let was = previous.map { candidate.condition.clause.matches($0) } ?? false
                fires = mode.fires(was: was, now: value)
            }
            guard fires, let trigger = try tx.things.trigger(thingID: thingID, triggerID: candidate.triggerID) else { continue }
            let (_, skip) = try Self.fire(trigger, dueAt: nil, counts: &counts, owners: &owners, quota: quota, tx, now)
            // Once one firing is skipped the counts stay put, so every skip of an upload has the same reason.
            if let skip {
                reason = skip
                skipped.append(trigger.triggerID)
            }
        }
        guard !skipped.isEmpty else { return nil }
        let skip = TriggerSkip(triggerIDs: skipped, reason: reason, quota: quota)
        try Self.appendSkip(skip, thingID: thingID, tx, now)
        return skip
    }

    /// The thing's state triggers, oldest first, compiled: those kept in `sets` under the thing's trigger
    /// revision, or else its rows (read after the revision, in the same transaction, so that they are the
    /// revision's or newer), compiled once per predicate text and kept. Rows that are not state predicates (a
    /// single time that has fired) or no longer parse are left out.
    static func stateTriggers(
        thingID: String,
        conditions: TriggerConditions,
        sets: ThingTriggerSets,
        _ tx: any Transaction
    ) throws -> [ThingTriggerSets.Trigger] {
        let revision = try tx.things.triggerRevision(thingID: thingID)
        if let kept = sets.triggers(thingID: thingID, revision: revision) { return kept }
        let rows = try tx.things.stateTriggerRows(thingID: thingID)
        let triggers = zip(rows, conditions.conditions(of: rows.map(\.predicate))).compactMap { row, compiled in
            compiled.map { ThingTriggerSets.Trigger(triggerID: row.triggerID, enabled: row.enabled, condition: $0) }
        }
        sets.keep(triggers, thingID: thingID, revision: revision)
        return triggers
    }

    /// Fires the schedules due by now, at most `limit` of them, oldest due first; returns how many were handled,
    /// when the next one is due, and the firings skipped past the bounds (committed, for the skip metric). Each
    /// due time is advanced in the transaction that fires it, only if no other host advanced it first, so a due
    /// time fires once; one found later than ``scheduleCatchUp`` allows is recorded as missed instead.
    public func fireDueSchedules(limit: Int = 500) async throws -> (handled: Int, nextDue: Int64?, skipped: [TriggerSkip]) {
        let now = self.now()
        // A read first: most wakes find nothing due, and take no write transaction.
        let earliest = try await self.store.read { tx in try tx.things.earliestDue() }
        guard let earliest, earliest <= now else { return (0, earliest, []) }
        let catchUp = self.scheduleCatchUp
        let quota = self.storageQuota
        // The next due time is read in the same transaction, after the firings advanced theirs.
        let (handled, nextDue, skipped) = try await self.store.write { tx in
            var handled = 0
            var skipped: [TriggerSkip] = []
            var countsByThing: [String: FiringCounts] = [:]
            var ownersByThing: [String: [ThingOwner]] = [:]
            for var trigger in try tx.things.dueTriggers(at: now, limit: limit) {
                guard let dueAt = trigger.nextFire else { continue }
                let next = trigger.predicate.nextFire(after: max(now, dueAt))
                guard try tx.things.advanceSchedule(triggerID: trigger.triggerID, from: dueAt, to: next) else { continue }
                trigger.nextFire = next
                handled += 1
                guard catchUp.fires(due: dueAt, now: now) else {
                    try Self.record(
                        TriggerFiring(
                            triggerID: trigger.triggerID,
                            thingID: trigger.thingID,
                            firedAt: now,
                            dueAt: dueAt,
                            cause: trigger.predicate.eventSource,
                            outcome: .missed,
                            reason: "outsideCatchUpWindow"
                        ),
                        tx
                    )
                    continue
                }
                var counts = countsByThing[trigger.thingID]
                var owners = ownersByThing[trigger.thingID]
                let (_, skip) = try Self.fire(trigger, dueAt: dueAt, counts: &counts, owners: &owners, quota: quota, tx, now)
                countsByThing[trigger.thingID] = counts
                ownersByThing[trigger.thingID] = owners
                if let skip {
                    let skip = TriggerSkip(triggerIDs: [trigger.triggerID], reason: skip, quota: quota)
                    try Self.appendSkip(skip, thingID: trigger.thingID, tx, now)
                    skipped.append(skip)
                }
            }
            return (handled, try tx.things.earliestDue(), skipped)
        }
        return (handled, nextDue, skipped)
    }

    /// What a thing's command firings count against: its pending commands, and the commands its triggers sent
    /// in the last ``triggerFiringWindow``.
    typealias FiringCounts = (pending: Int, fired: Int)

    /// Runs a trigger's action and records the firing. A command past a bound is not sent: the firing is
    /// recorded as skipped and the bound returned; so is one whose issuer is no longer an owner (its ownership
    /// was removed after the trigger was made), with no bound. `counts` and `owners` are the thing's, read at the
    /// first firing that needs them and kept for the next ones of the same transaction.
    static func fire(
        _ trigger: ThingTrigger,
        dueAt: Int64?,
        counts: inout FiringCounts?,
        owners: inout [ThingOwner]?,
        quota: StorageQuota,
        _ tx: any Transaction,
        _ now: Int64
    ) throws -> (TriggerFiring, TriggerSkip.Reason?) {
        let thingOwners = try owners ?? tx.things.thingOwners(thingID: trigger.thingID)
        owners = thingOwners
        var firing = TriggerFiring(
            triggerID: trigger.triggerID,
            thingID: trigger.thingID,
            firedAt: now,
            dueAt: dueAt,
            cause: trigger.predicate.eventSource,
            outcome: .skipped
        )
        var skip: TriggerSkip.Reason?
        switch trigger.action {
        case .notify(let parameters):
            var members: [String: JSONValue] = [
                "triggerID": .string(trigger.triggerID),
                "eventSource": .string(trigger.predicate.eventSource),
            ]
            if let dueAt { members["dueAt"] = .int(dueAt) }
            if let parameters { members["parameters"] = parameters }
            try tx.append(
                ThingEvent(
                    kind: .triggerFired,
                    thingID: trigger.thingID,
                    time: now,
                    audience: .owners(thingOwners, plus: trigger.creator.map { [$0] } ?? []),
                    members: members
                )
            )
            firing.outcome = .notified
        case .command(let request):
            let thingID = trigger.thingID
            let current =
                try counts ?? (
                    tx.things.pendingCommandCount(thingID: thingID),
                    tx.things.triggerFiringCount(thingID: thingID, since: now - Self.triggerFiringWindow + 1)
                )
            counts = current
            if !thingOwners.contains(request.issuer) {
                firing.reason = "issuerNotOwner"
            } else if current.pending >= Self.maximumPendingCommands {
                skip = .pendingCommands
            } else if current.fired >= Self.maximumTriggerFiringsPerSecond {
                skip = .firingRate
            } else if try quota.isReached(by: .thing(thingID), tx) {
                skip = .storageQuota
            } else {
                let creator = try trigger.creator.flatMap { try tx.users.user(id: $0) }
                let commandID = RandomID.timeOrderedHex(now: now)
                try Self.store(
                    ThingCommand(
                        commandID: commandID,
                        thingID: thingID,
                        request: request,
                        senderUserID: creator?.id,
                        senderInstallationID: nil,
                        senderIsPseudo: creator?.isPseudo ?? false,
                        firedByTriggerID: trigger.triggerID,
                        created: now,
                        modified: now
                    ),
                    tx
                )
                counts = (current.pending + 1, current.fired + 1)
                firing.outcome = .commandSent
                firing.commandID = commandID
            }
            if let skip { firing.reason = skip.rawValue }
        }
        try Self.record(firing, tx)
        return (firing, skip)
    }

    /// Stores a firing in its trigger's results. The oldest past ``maximumTriggerResults`` are dropped at one of
    /// the trigger's firings in ``triggerResultPruneEvery`` (by its ordinal among them), not at each: a prune
    /// walks a thousand index entries, which at every firing would cost more than the firing itself. So a
    /// trigger keeps at most that many more. (Counting by the rows' ids, shared by all triggers, 64 triggers
    /// firing in turn would leave all but one never pruned.)
    static func record(_ firing: TriggerFiring, _ tx: any Transaction) throws {
        let ordinal = try tx.things.insertTriggerFiring(firing)
        if ordinal % Self.triggerResultPruneEvery == 0 {
            try tx.things.pruneTriggerFirings(triggerID: firing.triggerID, keep: Self.maximumTriggerResults)
        }
    }

    /// One of a trigger's firings in this many prunes its results.
    static let triggerResultPruneEvery: Int64 = 64

    /// Appends the `triggerSkipped` event of firings that sent nothing, to the thing's owners.
    static func appendSkip(_ skip: TriggerSkip, thingID: String, _ tx: any Transaction, _ now: Int64) throws {
        try tx.append(
            ThingEvent(
                kind: .triggerSkipped,
                thingID: thingID,
                time: now,
                audience: .owners(try tx.things.thingOwners(thingID: thingID)),
                members: [
                    "triggerIDs": .array(skip.triggerIDs.map { .string($0) }),
                    "reason": .string(skip.reason.rawValue),
                    "limit": .int(skip.limit),
                ]
            )
        )
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
