import GuildCore
import GuildProtocol

/// The groups area (Kii groups and what every type shares): `group.*` basics and the user's group lists.
///
/// It keeps the wire JSON of recently listed groups (``GroupSummaryCache``), dropped by the store's
/// after-commit hook for every group a commit changed.
struct GroupArea: FeatureArea {
    let groups: GroupService
    let summaries: GroupSummaryCache

    init(groups: GroupService, store: any Store) {
        self.groups = groups
        self.summaries = GroupSummaryCache.attached(to: store)
    }

    func register(in registry: inout MethodRegistry) {
        registry.registerGroupMethods(self.groups, summaries: self.summaries)
    }

    var invariantChecks: [@Sendable () async throws -> [String]] {
        let store = self.groups.store
        return [{ try await store.read { try $0.groups.groupInvariantViolations() } }]
    }
}
