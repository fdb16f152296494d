import GuildCore

/// The things area: Kii Thing-IF's things, owners, commands, states, installations and triggers, and their
/// events (topics `thing:<thingID>`).
struct ThingArea: FeatureArea {
    let things: ThingService

    func register(in registry: inout MethodRegistry) {
        registry.registerThingMethods(self.things)
    }

    var invariantChecks: [@Sendable () async throws -> [String]] {
        let store = self.things.store
        return [{ try await store.read { try $0.things.thingInvariantViolations() } }]
    }
}
