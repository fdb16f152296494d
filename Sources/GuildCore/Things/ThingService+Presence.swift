/// Connectivity: a thing is online while a connection is bound to it.
extension ThingService {
    /// Records whether the thing is online; when that changes, its owners get `thingConnected` or
    /// `thingDisconnected`. `online` is read when the write runs, so writes racing each other settle on the
    /// last state.
    public func setOnline(thingID: String, _ online: @escaping @Sendable () -> Bool) async throws {
        let now = self.now()
        try await self.store.write { tx in try Self.record(online(), thingID: thingID, now: now, in: tx) }
    }

    /// Marks every thing offline (the daemon starts with no connections): those left online by a stop get
    /// `thingDisconnected`. One write transaction, so the reset is whole or not at all, and start-up opens no
    /// reader connection for it (the writer's is open already).
    public func resetPresence() async throws {
        let now = self.now()
        try await self.store.write { tx in
            for thingID in try tx.things.onlineThingIDs() {
                try Self.record(false, thingID: thingID, now: now, in: tx)
            }
        }
    }

    /// Records `online` for the thing in `tx`, with the event for its owners, if that changes it.
    private static func record(_ online: Bool, thingID: String, now: Int64, in tx: any Transaction) throws {
        guard var thing = try tx.things.thing(id: thingID), thing.online != online else { return }
        thing.online = online
        thing.onlineModified = now
        try tx.things.updateThing(thing)
        try tx.append(
            ThingEvent(
                kind: online ? .thingConnected : .thingDisconnected,
                thingID: thingID,
                time: now,
                audience: .owners(try tx.things.thingOwners(thingID: thingID))
            )
        )
    }
}
