import GuildCore

/// Storage usage: `system.storage`, the usage gauges of `system.metrics` and the check that the usage the
/// engine keeps matches what is stored. The quota itself is enforced by the areas that store (objects, things).
struct StorageUsageArea: FeatureArea {
    let store: any Store
    let quota: StorageQuota

    func register(in registry: inout MethodRegistry) {
        registry.registerStorageMethods(store: self.store, quota: self.quota)
    }

    var invariantChecks: [@Sendable () async throws -> [String]] {
        let store = self.store
        return [{ try await store.read { try $0.storage.storageInvariantViolations() } }]
    }
}
