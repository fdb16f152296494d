import Synchronization

/// The wire JSON of recently listed groups (`{"createdAt":...,"type":...}`), so a user's group list is an index
/// scan plus lookups here rather than a B-tree search per group.
///
/// Writes mark the groups they change (``EventLog/touchedGroups``); right after their commit the writer drops
/// those entries. A reader may only add what it read if no commit finished since it began (the generation it
/// took before opening its snapshot is still current): an entry is never older than the newest commit that
/// changed its group. Bounded; when full it starts over.
final class GroupSummaryCache: Sendable {
    private struct State {
        var entries: [String: [UInt8]] = [:]
        var generation: UInt64 = 0
    }

    private let state = Mutex(State())
    /// The most groups kept.
    let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// Taken before a read opens its snapshot; pass it back to ``store(_:generation:)``.
    var generation: UInt64 { self.state.withLock { $0.generation } }

    /// The cached JSON of each id, nil where there is none.
    func lookup(_ ids: [String]) -> [[UInt8]?] {
        self.state.withLock { state in ids.map { state.entries[$0] } }
    }

    /// Adds what a read found, unless a commit finished since `generation` was taken.
    func store(_ found: [String: [UInt8]], generation: UInt64) {
        guard !found.isEmpty else { return }
        self.state.withLock { state in
            guard state.generation == generation else { return }
            if state.entries.count + found.count > self.capacity { state.entries.removeAll(keepingCapacity: true) }
            state.entries.merge(found) { _, new in new }
        }
    }

    /// After a commit: drops the groups it changed.
    func committed(touching groups: Set<String>) {
        guard !groups.isEmpty else { return }
        self.state.withLock { state in
            state.generation &+= 1
            for id in groups { state.entries[id] = nil }
        }
    }
}
