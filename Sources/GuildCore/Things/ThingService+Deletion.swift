/// Deleting things, and what deleting a user or group does to things.
extension ThingService {
    /// Deletes a thing with its ownerships, tokens, commands, states, triggers and thing-scope buckets: an
    /// owner, the thing itself or an admin. Its owners get `thingDeleted`; connections bound to it are unbound.
    public func delete(caller: Caller, thingID: String) async throws {
        let now = self.now()
        try await self.store.write { tx in
            _ = try Self.requireThing(thingID, tx)
            try Self.requireOwnerOrThing(caller, thingID, tx)
            let owners = try tx.things.thingOwners(thingID: thingID)
            try tx.objects.deleteScope(.thing(thingID))
            try tx.objects.deleteACLEntries(naming: .thing(thingID))
            try tx.things.deleteThing(id: thingID)
            try tx.append(ThingEvent(kind: .thingDeleted, thingID: thingID, time: now, audience: .owners(owners)))
        }
        self.generations.bump(thingID)
    }

    /// A deleted user's ownerships and installations go, in the deletion's transaction.
    public static let removeDeletedUser: UserDeletionStep = { userID, tx, now in
        try removeOwnerships(of: .user(userID), tx, now)
        try tx.things.deleteInstallations(userID: userID)
    }

    /// A deleted group's ownerships go, in the deletion's transaction.
    public static let removeDeletedGroup: GroupDeletionStep = { groupID, tx, now in
        try removeOwnerships(of: .group(groupID), tx, now)
    }

    private static func removeOwnerships(of owner: ThingOwner, _ tx: any Transaction, _ now: Int64) throws {
        for thingID in try tx.things.deleteThingOwnerships(of: owner) {
            try Self.appendOwnerChange(.thingOwnerRemoved, thingID, owner, tx, now)
        }
    }
}
