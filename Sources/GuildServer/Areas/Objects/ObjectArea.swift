import GuildCore

/// The objects area: Kii's buckets and objects in the app, group and user scopes, their ACLs, queries and
/// change events (topics `bucket:<scope>/<bucket>`).
struct ObjectArea: FeatureArea {
    let objects: ObjectService

    func register(in registry: inout MethodRegistry) {
        registry.registerObjectMethods(self.objects)
    }

    var invariantChecks: [@Sendable () async throws -> [String]] {
        let store = self.objects.store
        return [{ try await store.read { try $0.objects.objectInvariantViolations() } }]
    }
}
