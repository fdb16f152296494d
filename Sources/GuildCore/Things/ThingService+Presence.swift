/// Connectivity: a thing is online while a connection is bound to it.
extension ThingService {
    /// Records whether the thing is online; when that changes, its owners get `thingConnected` or
    /// `thingDisconnected`. `online` is read when the write runs, so writes racing each other settle on the
    /// last state.
    public func setOnline(thingID: String, _ online: @escaping @Sendable () -> Bool) async throws {
        let now = self.now()
        try await self.store.write { tx in
            guard var thing = try tx.thing(id: thingID) else { return }
            let value = online()
            guard thing.online != value else { return }
            thing.online = value
            thing.onlineModified = now
            try tx.updateThing(thing)
            try tx.append(
                ThingEvent(
                    kind: value ? .thingConnected : .thingDisconnected,
                    thingID: thingID,
                    time: now,
                    audience: .owners(try tx.thingOwners(thingID: thingID))
                )
            )
        }
    }

    /// Marks every thing offline (the daemon starts with no connections): those left online by a stop get
    /// `thingDisconnected`.
    public func resetPresence() async throws {
        let online = try await self.store.read { try $0.onlineThingIDs() }
        for thingID in online { try await self.setOnline(thingID: thingID) { false } }
    }
}
