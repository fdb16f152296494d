/// Connectivity: a thing is online while a connection to any host is bound to it.
///
/// Each host records the things bound on it as rows of its own (a row per thing and host), under a lease it
/// renews (``PresenceHost``); `thing.online` is whether any host has a row for the thing, changed in the same
/// transaction as the rows, with `thingConnected` or `thingDisconnected` when it changes: once for the
/// thing, however many hosts it is bound on. A thing's changes are serialized by its row's lock, which each
/// write here takes first.
extension ThingService {
    /// Records whether the thing is bound on this host; when that changes whether it is online anywhere, its
    /// owners get `thingConnected` or `thingDisconnected`. `online` is read when the write runs, so writes racing
    /// each other settle on the last state.
    public func setOnline(thingID: String, _ online: @escaping @Sendable () -> Bool) async throws {
        let now = self.now()
        let hostID = self.presenceHost.id
        try await self.store.write { tx in
            try Self.record(online(), thingID: thingID, hostID: hostID, now: now, in: tx)
        }
    }

    /// Takes this host's place among the hosts, before it serves its first connection: gives it a lease, and
    /// turns offline (with `thingDisconnected`) the things left online by hosts that are gone: every other host
    /// of a store only this process opens (a past run), the past runs of this host (by its name) and the hosts
    /// whose lease has ended of a shared one, and things online with no host at all. One write transaction, so
    /// it is whole or not at all, and start-up opens no reader connection for it (the writer's is open already).
    public func startPresence() async throws {
        let now = self.now()
        let clock = PresenceHost.clock()
        let host = self.presenceHost
        let alone = !self.store.isSharedByHosts
        try await self.store.write { tx in
            try tx.things.insertHostLease(hostID: host.id, name: host.name, expires: clock + host.lease)
            let gone = try tx.things.hostsToReap(
                before: alone ? .max : clock,
                named: host.name.isEmpty ? nil : host.name,
                unleased: true,
                except: host.id
            )
            for hostID in gone { try Self.reap(hostID: hostID, now: now, in: tx) }
            for thingID in try tx.things.onlineThingIDs() {
                // Online with no presence row: set before presence was kept per host.
                try Self.record(false, thingID: thingID, hostID: host.id, now: now, in: tx)
            }
        }
    }

    /// Renews this host's lease. A host found without one was taken for dead (it could not renew for a lease, its
    /// database out of reach or the host stalled) and its things turned offline: it takes a new lease and records
    /// `bound` (the things bound on it now) again, which turns them online again. Returns false then.
    @discardableResult
    public func renewPresence(bound: @escaping @Sendable () -> [String]) async throws -> Bool {
        let now = self.now()
        let expires = PresenceHost.clock() + self.presenceHost.lease
        let host = self.presenceHost
        return try await self.store.write { tx in
            if try tx.things.renewHostLease(hostID: host.id, expires: expires) { return true }
            try tx.things.insertHostLease(hostID: host.id, name: host.name, expires: expires)
            for thingID in bound() {
                try Self.record(true, thingID: thingID, hostID: host.id, now: now, in: tx)
            }
            return false
        }
    }

    /// Turns offline the things of hosts whose lease has ended (they died), with `thingDisconnected` for each
    /// thing no live host has, and ends those leases; returns the hosts reaped. Every host does this at each
    /// renewal; of two that find the same dead host, the second finds its rows gone and tells no one again.
    @discardableResult
    public func reapDeadHosts() async throws -> [String] {
        let now = self.now()
        let clock = PresenceHost.clock()
        let hostID = self.presenceHost.id
        return try await self.store.write { tx in
            let dead = try tx.things.hostsToReap(before: clock, named: nil, unleased: false, except: hostID)
            for host in dead { try Self.reap(hostID: host, now: now, in: tx) }
            return dead
        }
    }

    /// Leaves the hosts (the daemon stops): this host's things go offline now, for every other host, rather than
    /// when its lease ends.
    public func stopPresence() async throws {
        let now = self.now()
        let hostID = self.presenceHost.id
        try await self.store.write { tx in try Self.reap(hostID: hostID, now: now, in: tx) }
    }

    /// Removes a host's presence rows, each thing's row under the thing's lock (in id order, so two hosts reaping
    /// at once take them in the same order), and its lease.
    private static func reap(hostID: String, now: Int64, in tx: any Transaction) throws {
        for thingID in try tx.things.thingsPresent(hostID: hostID) {
            try Self.record(false, thingID: thingID, hostID: hostID, now: now, in: tx)
        }
        try tx.things.deleteHostLease(hostID: hostID)
    }

    /// Records in `tx` whether the thing is bound on `hostID`, and `online` (whether any host has it bound),
    /// with the event for its owners, if that changes. The thing's row is read first, which locks it where
    /// hosts write at once.
    private static func record(_ present: Bool, thingID: String, hostID: String, now: Int64, in tx: any Transaction) throws {
        guard var thing = try tx.things.thing(id: thingID) else { return }
        let online = try tx.things.recordThingPresence(present, thingID: thingID, hostID: hostID, now: now)
        guard thing.online != online else { return }
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
