import GuildCore
import Synchronization

/// What runs after each commit, before any writer's caller hears of it: the areas' cache invalidations
/// (``Store/afterCommit(_:)``). The write path itself knows nothing of what the hooks keep.
final class CommitHooks: Sendable {
    private let hooks = Mutex<[@Sendable (Set<RecordKey>) -> Void]>([])

    /// Adds a hook.
    func add(_ hook: @escaping @Sendable (Set<RecordKey>) -> Void) {
        self.hooks.withLock { $0.append(hook) }
    }

    /// Runs every hook with what a commit changed (nothing runs when it changed nothing).
    func committed(changing records: Set<RecordKey>) {
        guard !records.isEmpty else { return }
        for hook in self.hooks.withLock({ $0 }) { hook(records) }
    }
}
