import GuildCore

/// The things area: Kii Thing-IF's things, owners, commands, states, installations and triggers, and their
/// events (topics `thing:<thingID>`).
struct ThingArea: FeatureArea {
    let things: ThingService
    /// Which things are online; `thing.disable` unbinds the thing's connections through it.
    let presence: ThingPresence
    /// Ends a disabled thing's subscriptions.
    let hub: EventHub

    func register(in registry: inout MethodRegistry) {
        registry.registerThingMethods(self.things, presence: self.presence, hub: self.hub)
    }

    var invariantChecks: [@Sendable () async throws -> [String]] {
        let store = self.things.store
        return [{ try await store.read { try $0.things.thingInvariantViolations() } }]
    }
}
