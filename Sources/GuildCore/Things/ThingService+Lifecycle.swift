import GuildJSON

/// A thing's life after onboarding (data-things-messages.md §4.3): found by its vendor's id, its type, firmware
/// and custom fields updated, disabled and enabled again.
extension ThingService {
    /// A thing by its vendorThingID: for its owners, the thing itself and admins.
    public func find(caller: Caller, vendorThingID: String) async throws -> Thing {
        try ThingRules.checkVendorThingID(vendorThingID)
        return try await self.store.read { tx in
            guard let thing = try tx.things.thing(vendorThingID: vendorThingID) else {
                throw GuildError(.thingNotFound, "no thing with vendorThingID \(vendorThingID)", field: "vendorThingID")
            }
            try Self.requireOwnerOrThing(caller, thing.thingID, tx)
            return thing
        }
    }

    /// Changes a thing's type, firmware version and custom fields (merged at the top level, a `null` removing
    /// its field): an owner, the thing itself or an admin. When anything changed, the owners and the thing get
    /// `thingUpdated` with the new values of what changed. Returns the thing as it now is.
    public func update(
        caller: Caller,
        thingID: String,
        thingType: String?,
        firmwareVersion: String?,
        properties: [String: JSONValue]?
    ) async throws -> Thing {
        guard thingType != nil || firmwareVersion != nil || properties != nil else {
            throw GuildError.invalidInput("give at least one of thingType, firmwareVersion or thingProperties", field: "thingType")
        }
        try ThingRules.checkPredefined(thingType, field: "thingType")
        try ThingRules.checkPredefined(firmwareVersion, field: "firmwareVersion")
        let now = self.now()
        return try await self.store.write { tx in
            var thing = try Self.requireThing(thingID, tx)
            try Self.requireOwnerOrThing(caller, thingID, tx)
            var changes: [String: JSONValue] = [:]
            if let thingType, thingType != thing.thingType {
                thing.thingType = thingType
                changes["thingType"] = .string(thingType)
            }
            if let firmwareVersion, firmwareVersion != thing.firmwareVersion {
                thing.firmwareVersion = firmwareVersion
                changes["firmwareVersion"] = .string(firmwareVersion)
            }
            if let properties {
                let merged = try ThingRules.properties(thing.properties, merging: properties)
                if merged != thing.properties {
                    thing.properties = merged
                    changes["thingProperties"] = .object(merged)
                }
            }
            guard !changes.isEmpty else { return thing }
            thing.modified = now
            try tx.things.updateThing(thing)
            try Self.appendUpdate(thing, changes, tx, now)
            return thing
        }
    }

    /// Disables or enables a thing: an owner or an admin (not the thing itself). A disabled thing's token
    /// authenticates nothing and onboarding it is refused (`thingDisabled`); connections bound to it are unbound
    /// (the caller ends their presence and subscriptions: see ``SessionGenerations``). Its data stays, owners
    /// still read it and send it commands, which wait for it. Returns whether the status changed; when it did,
    /// the owners and the thing get `thingUpdated` with `disabled`.
    @discardableResult
    public func setDisabled(caller: Caller, thingID: String, disabled: Bool) async throws -> Bool {
        let now = self.now()
        let changed = try await self.store.write { tx in
            var thing = try Self.requireThing(thingID, tx)
            try Self.requireOwner(caller, thingID, tx)
            guard thing.disabled != disabled else { return false }
            thing.disabled = disabled
            thing.modified = now
            try tx.things.updateThing(thing)
            try Self.appendUpdate(thing, ["disabled": .bool(disabled)], tx, now)
            return true
        }
        if changed && disabled { self.generations.bump(thingID) }
        return changed
    }

    /// The error for a disabled thing's token or onboarding (the stores' token lookups throw it too).
    public static func disabledError(thingID: String) -> GuildError {
        GuildError(.thingDisabled, "thing \(thingID) is disabled: an owner or admin enables it with thing.enable")
    }

    /// Appends `thingUpdated` with `changes`, to the thing's owners and the thing.
    private static func appendUpdate(_ thing: Thing, _ changes: [String: JSONValue], _ tx: any Transaction, _ now: Int64) throws {
        try tx.append(
            ThingEvent(
                kind: .thingUpdated,
                thingID: thing.thingID,
                time: now,
                audience: .owners(try tx.things.thingOwners(thingID: thing.thingID), plus: [thing.thingID]),
                members: changes
            )
        )
    }
}
