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

    /// Runs every hook with what a commit changed (possibly nothing it named: a cache of everything a commit
    /// may change still needs to hear of it).
    func committed(changing records: Set<RecordKey>) {
        for hook in self.hooks.withLock({ $0 }) { hook(records) }
    }
}
