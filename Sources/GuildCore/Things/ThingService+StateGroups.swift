/// Grouped and aggregated state history (Thing-IF's `grouped` queries with `aggregations`), read from the
/// states' minute rollups (``StateRollup``) when the store keeps them (as ``StateHistoryLimits/keepsRollups``
/// says, see ``reconcileStateRollups()``), else from the states.
extension ThingService {
    /// A thing's history in groups (``GroupedStateQuery``): for its owners, the thing itself and admins, as the
    /// paged history is. A thing that never uploaded a state has none (`stateHistoryNotAvailable`).
    public func groupedStateHistory(caller: Caller, thingID: String, query: GroupedStateQuery) async throws -> [StateHistoryGroup] {
        try await self.store.read { tx in
            let thing = try Self.requireThing(thingID, tx)
            try Self.requireOwnerOrThing(caller, thingID, tx)
            guard thing.hasState else {
                throw GuildError(.stateHistoryNotAvailable, "thing \(thingID) has never uploaded a state")
            }
            return try query.groups(thingID: thingID, in: tx.things, rollups: try tx.things.stateRollupsKept())
        }
    }

    /// Makes the store keep the minute rollups or not, as ``StateHistoryLimits/keepsRollups`` says, filling or
    /// emptying them when that changed since the last start (one write transaction, before serving).
    public func reconcileStateRollups() async throws {
        let kept = self.stateHistory.keepsRollups
        try await self.store.write { tx in
            if try tx.things.stateRollupsKept() != kept { try tx.things.keepStateRollups(kept) }
        }
    }
}
