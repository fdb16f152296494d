/// Owners: adding, removing and listing a thing's owners.
extension ThingService {
    /// Adds an owner: a user adds themself, a member adds their group; the thing itself and admins add anyone.
    /// With `requirePasswordForOwnership`, callers other than the thing and admins must give the password.
    public func addOwner(caller: Caller, thingID: String, owner: ThingOwner, password: String?) async throws {
        let byThing = caller.thingID == thingID
        if self.requirePasswordForOwnership && !caller.isAdmin && !byThing {
            guard let password else {
                throw GuildError(.invalidCredentials, "this daemon requires the thing's password to add an owner", field: "thingPassword")
            }
            let stored = try await self.store.read { tx in try Self.requireThing(thingID, tx).passwordHash }
            guard await self.hasher.verify(password, against: stored) else {
                throw GuildError(.invalidCredentials, "wrong thing password", field: "thingPassword")
            }
        }
        let now = self.now()
        try await self.store.write { tx in
            _ = try Self.requireThing(thingID, tx)
            if !byThing { try Self.requireOwnerRights(caller, owner, tx) }
            guard try tx.things.insertThingOwner(thingID: thingID, owner: owner, now: now) else {
                throw GuildError(.thingOwnershipAlreadyExists, "\(owner) already owns thing \(thingID)", field: "owner")
            }
            try Self.appendOwnerChange(.thingOwnerAdded, thingID, owner, tx, now)
        }
    }

    /// Removes an owner: the user themself, a member of the owner group, the thing itself, or an admin.
    public func removeOwner(caller: Caller, thingID: String, owner: ThingOwner) async throws {
        let now = self.now()
        try await self.store.write { tx in
            _ = try Self.requireThing(thingID, tx)
            if caller.thingID != thingID { try Self.requireOwnerRights(caller, owner, tx) }
            guard try tx.things.deleteThingOwner(thingID: thingID, owner: owner) else {
                throw GuildError(.thingOwnershipNotFound, "\(owner) does not own thing \(thingID)", field: "owner")
            }
            try Self.appendOwnerChange(.thingOwnerRemoved, thingID, owner, tx, now)
        }
    }

    /// The thing's owners: for its owners, the thing itself and admins.
    public func owners(caller: Caller, thingID: String) async throws -> [ThingOwner] {
        try await self.store.read { tx in
            _ = try Self.requireThing(thingID, tx)
            try Self.requireOwnerOrThing(caller, thingID, tx)
            return try tx.things.thingOwners(thingID: thingID)
        }
    }
}
