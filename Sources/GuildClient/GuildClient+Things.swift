import GuildJSON
import GuildProtocol

/// Typed calls of the things area (see protocol/things.md): onboarding, owners, commands, states,
/// installations and triggers. Owners are TypedIDs: `user:ID` or `group:ID`.
extension GuildClient {
    /// `thing.onboard`: registers (or onboards again) a thing for `owner`; returns its id and a new token.
    public func onboardThing(
        vendorThingID: String,
        password: String,
        owner: String,
        thingType: String? = nil,
        firmwareVersion: String? = nil,
        properties: [String: JSONValue]? = nil
    ) async throws -> ThingMethods.Onboard.Result {
        try await self.call(
            ThingMethods.Onboard.self,
            .init(
                vendorThingID: vendorThingID,
                thingPassword: password,
                owner: owner,
                thingType: thingType,
                firmwareVersion: firmwareVersion,
                thingProperties: properties
            )
        )
    }

    /// `thing.get`.
    public func thing(_ thingID: String) async throws -> ThingMethods.ThingInfo {
        try await self.call(ThingMethods.Get.self, .init(thingID: thingID))
    }

    /// `thing.find`: a thing by its vendorThingID.
    public func findThing(vendorThingID: String) async throws -> ThingMethods.ThingInfo {
        try await self.call(ThingMethods.Find.self, .init(vendorThingID: vendorThingID))
    }

    /// `thing.update`: changes the given fields (`properties` merged, a `null` removing one); returns the thing.
    @discardableResult
    public func updateThing(
        _ thingID: String,
        thingType: String? = nil,
        firmwareVersion: String? = nil,
        properties: [String: JSONValue]? = nil
    ) async throws -> ThingMethods.ThingInfo {
        try await self.call(
            ThingMethods.Update.self,
            .init(thingID: thingID, thingType: thingType, firmwareVersion: firmwareVersion, thingProperties: properties)
        )
    }

    /// `thing.disable` (`disabled: true`) or `thing.enable`.
    public func setThingDisabled(_ thingID: String, _ disabled: Bool) async throws {
        if disabled {
            _ = try await self.call(ThingMethods.Disable.self, .init(thingID: thingID))
        } else {
            _ = try await self.call(ThingMethods.Enable.self, .init(thingID: thingID))
        }
    }

    /// `thing.delete`.
    public func deleteThing(_ thingID: String) async throws {
        _ = try await self.call(ThingMethods.Delete.self, .init(thingID: thingID))
    }

    /// `thing.addOwner`.
    public func addThingOwner(_ thingID: String, owner: String, password: String? = nil) async throws {
        _ = try await self.call(ThingMethods.AddOwner.self, .init(thingID: thingID, owner: owner, thingPassword: password))
    }

    /// `thing.removeOwner`.
    public func removeThingOwner(_ thingID: String, owner: String) async throws {
        _ = try await self.call(ThingMethods.RemoveOwner.self, .init(thingID: thingID, owner: owner))
    }

    /// `thing.owners`: TypedIDs.
    public func thingOwners(_ thingID: String) async throws -> [String] {
        try await self.call(ThingMethods.Owners.self, .init(thingID: thingID)).owners
    }

    /// `user.ownedThings`: the caller's things (or `userID`'s, for an admin).
    public func ownedThings(userID: String? = nil) async throws -> [ThingMethods.ThingInfo] {
        try await self.call(ThingMethods.OwnedThings.self, .init(userID: userID)).things
    }

    /// `thing.putState`: returns whether it was the thing's first state.
    @discardableResult
    public func putThingState(_ thingID: String, _ state: [String: JSONValue], timestamp: Int64? = nil) async throws -> Bool {
        try await self.call(ThingMethods.PutState.self, .init(thingID: thingID, state: state, timestamp: timestamp)).created
    }

    /// `thing.getState`.
    public func thingState(_ thingID: String) async throws -> ThingMethods.StateInfo {
        try await self.call(ThingMethods.GetState.self, .init(thingID: thingID))
    }

    /// `thing.stateHistory`: one page.
    public func thingStateHistory(
        _ thingID: String,
        from: Int64? = nil,
        to: Int64? = nil,
        limit: Int? = nil,
        paginationKey: String? = nil
    ) async throws -> ThingMethods.StateHistory.Result {
        try await self.call(
            ThingMethods.StateHistory.self,
            .init(thingID: thingID, from: from, to: to, limit: limit, paginationKey: paginationKey)
        )
    }

    /// `thing.stateHistory` grouped (Thing-IF's grouped query): `from...to` split into groups of `interval` ms
    /// (nil: the daemon's choice, at most 60 groups), each with the values of `aggregations`, or with its states
    /// when there is none.
    public func thingStateGroups(
        _ thingID: String,
        from: Int64,
        to: Int64,
        interval: Int64? = nil,
        aggregations: [ThingMethods.StateAggregationSpec] = []
    ) async throws -> [ThingMethods.StateGroup] {
        let result = try await self.call(
            ThingMethods.StateHistory.self,
            .init(thingID: thingID, from: from, to: to, grouped: true, interval: interval, aggregations: aggregations)
        )
        return result.groupedResults ?? []
    }

    /// `command.send`: returns the command's id.
    public func sendCommand(_ thingID: String, _ request: CommandMethods.CommandRequest) async throws -> String {
        try await self.call(CommandMethods.Send.self, .init(thingID: thingID, request)).commandID
    }

    /// `command.get`.
    public func command(_ thingID: String, commandID: String) async throws -> CommandMethods.CommandInfo {
        try await self.call(CommandMethods.Get.self, .init(thingID: thingID, commandID: commandID))
    }

    /// `command.list`: one page, newest first.
    public func commands(_ thingID: String, limit: Int? = nil, paginationKey: String? = nil) async throws -> CommandMethods.List.Result {
        try await self.call(CommandMethods.List.self, .init(thingID: thingID, limit: limit, paginationKey: paginationKey))
    }

    /// `command.putResults` (as the thing): returns the command's state, DONE or INCOMPLETE.
    @discardableResult
    public func putCommandResults(_ thingID: String, commandID: String, results: [JSONValue]) async throws -> String {
        try await self.call(CommandMethods.PutResults.self, .init(thingID: thingID, commandID: commandID, actionResults: results))
            .commandState
    }

    /// `installation.register`: binds this connection to the installation too.
    @discardableResult
    public func registerInstallation(
        deviceType: String,
        registrationID: String? = nil,
        development: Bool = false
    ) async throws -> InstallationMethods.InstallationInfo {
        try await self.call(
            InstallationMethods.Register.self,
            .init(deviceType: deviceType, installationRegistrationID: registrationID, development: development ? true : nil)
        )
    }

    /// `trigger.create`: returns the trigger's id.
    public func createTrigger(_ thingID: String, condition: JSONValue, command: CommandMethods.CommandRequest) async throws -> String {
        try await self.call(TriggerMethods.Create.self, .init(thingID: thingID, condition: condition, command: command)).triggerID
    }

    /// `trigger.create` with any predicate and action: returns the trigger's id, and a schedule's first due time
    /// and time zone.
    public func createTrigger(_ thingID: String, _ spec: TriggerMethods.TriggerSpec) async throws -> TriggerMethods.Create.Result {
        try await self.call(TriggerMethods.Create.self, .init(thingID: thingID, spec))
    }

    /// `trigger.patch`: what `spec` gives replaces the trigger's; returns the trigger as it is now.
    public func patchTrigger(_ thingID: String, _ triggerID: String, _ spec: TriggerMethods.TriggerSpec) async throws -> TriggerMethods.TriggerInfo {
        try await self.call(TriggerMethods.Patch.self, .init(thingID: thingID, triggerID: triggerID, spec))
    }

    /// `trigger.get`.
    public func trigger(_ thingID: String, _ triggerID: String) async throws -> TriggerMethods.TriggerInfo {
        try await self.call(TriggerMethods.Get.self, .init(thingID: thingID, triggerID: triggerID))
    }

    /// `trigger.results`: a page of the trigger's firings, newest first.
    public func triggerResults(
        _ thingID: String,
        _ triggerID: String,
        limit: Int? = nil,
        cursor: String? = nil
    ) async throws -> TriggerMethods.Results.Result {
        try await self.call(TriggerMethods.Results.self, .init(thingID: thingID, triggerID: triggerID, limit: limit, cursor: cursor))
    }

    /// `trigger.list`.
    public func triggers(_ thingID: String) async throws -> [TriggerMethods.TriggerInfo] {
        try await self.call(TriggerMethods.List.self, .init(thingID: thingID)).triggers
    }
}
