import GuildJSON

/// States: uploads by the thing (or an owner), the latest, the history; each upload is checked against the
/// thing's triggers.
extension ThingService {
    /// The most states in one `thing.stateHistory` page, and the default.
    public static let maximumStatePage = 1000

    /// Uploads a state: the thing itself, an owner, or an admin. Returns whether it was the thing's first
    /// state, its time, and the trigger firings it skipped. Owners get `thingStateChanged`; each enabled state
    /// trigger fires as its `triggersWhen` says (against the state before this one), within the bounds on what
    /// triggers send (past them, owners get `triggerSkipped`).
    public func putState(
        caller: Caller,
        thingID: String,
        state: [String: JSONValue],
        timestamp: Int64?
    ) async throws
        -> (created: Bool, timestamp: Int64, skipped: TriggerSkip?)
    {
        try ThingRules.checkState(state)
        let now = self.now()
        let time = timestamp ?? now
        return try await self.store.write { tx in
            let first = try !Self.requireThingExists(thingID, tx)
            try Self.requireOwnerOrThing(caller, thingID, tx)
            let stateID = try tx.things.insertState(thingID: thingID, state: ThingState(state: state, timestamp: time), uploaded: now)
            if first { try tx.things.markThingHasState(id: thingID) }
            var event = ThingEvent(
                kind: .thingStateChanged,
                thingID: thingID,
                time: now,
                audience: .owners(try tx.things.thingOwners(thingID: thingID)),
                members: ["state": .object(state), "timestamp": .int(time)]
            )
            event.stateID = stateID
            try tx.append(event)
            let skipped = try Self.runTriggers(
                thingID: thingID,
                state: state,
                stateID: stateID,
                conditions: self.triggerConditions,
                sets: self.triggerSets,
                quota: self.storageQuota,
                tx,
                now
            )
            // After the triggers, which compare this state with the one before it, which the history may drop now.
            try tx.things.pruneStates(
                thingID: thingID,
                keepCount: self.stateHistory.count,
                before: now - self.stateHistory.maximumAgeMilliseconds
            )
            return (first, time, skipped)
        }
    }

    /// The latest state: for owners, the thing itself and admins.
    public func latestState(caller: Caller, thingID: String) async throws -> ThingState {
        try await self.store.read { tx in
            _ = try Self.requireThing(thingID, tx)
            try Self.requireOwnerOrThing(caller, thingID, tx)
            guard let state = try tx.things.latestState(thingID: thingID) else {
                throw GuildError(.stateNotFound, "thing \(thingID) has not uploaded a state")
            }
            return state
        }
    }

    /// States with `from <= timestamp <= to`, oldest first, paged.
    public func stateHistory(
        caller: Caller,
        thingID: String,
        from: Int64?,
        to: Int64?,
        limit: Int?,
        paginationKey: String?
    )
        async throws -> (states: [ThingState], nextPaginationKey: String?)
    {
        let limit = try Self.pageLimit(limit, maximum: Self.maximumStatePage)
        let from = from ?? Int64.min
        let to = to ?? Int64.max
        let binding = PageBinding("thing.stateHistory", caller: caller, [thingID, String(from), String(to)])
        let after = try paginationKey.map { key throws(GuildError) in try self.position(key, for: binding) }
        guard from <= to else { throw GuildError.invalidInput("from is after to", field: "from") }
        return try await self.store.read { tx in
            let thing = try Self.requireThing(thingID, tx)
            try Self.requireOwnerOrThing(caller, thingID, tx)
            guard thing.hasState else {
                throw GuildError(.stateHistoryNotAvailable, "thing \(thingID) has never uploaded a state")
            }
            let page = try tx.things.states(thingID: thingID, from: from, to: to, after: after, limit: limit + 1)
            let next = page.count > limit ? self.key(page[limit - 1].position, for: binding) : nil
            return (page.prefix(limit).map(\.state), next)
        }
    }
}
