import GuildCore
import GuildProtocol
import Synchronization

/// The wire JSON of recently listed groups (`{"createdAt":...,"type":...}`), so a user's group list is an index
/// scan plus lookups here rather than a B-tree search per group.
///
/// Writes name the groups they change (`Transaction.changed`); right after their commit the store's hook
/// (see ``GroupArea``) drops those entries. A reader may only add what it read if no commit finished since it began (the generation it
/// took before opening its snapshot is still current): an entry is never older than the newest commit that
/// changed its group. Bounded; when full it starts over.
public final class GroupSummaryCache: Sendable {
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

    /// A cache of up to `capacity` groups whose entries `store`'s commits drop when they change the group.
    public static func attached(to store: any Store, capacity: Int = 50_000) -> GroupSummaryCache {
        let cache = GroupSummaryCache(capacity: capacity)
        store.afterCommit { changed in
            cache.committed(touching: changed.compactMap { $0.area == "group" ? $0.id : nil })
        }
        return cache
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
    func committed(touching groups: [String]) {
        guard !groups.isEmpty else { return }
        self.state.withLock { state in
            state.generation &+= 1
            for id in groups { state.entries[id] = nil }
        }
    }
}

extension GroupSummaryCache {
    /// A user's groups (or the groups they own) as the wire's JSON array of group objects: the ids in join
    /// order from the store's index, then each group's JSON from here, or from its row (then kept).
    public func listJSON(_ groups: GroupService, caller: Caller, userID: String?, ownedOnly: Bool) async throws -> [UInt8] {
        // Taken before the read opens its snapshot: what it finds is kept only if no commit finished meanwhile.
        let generation = self.generation
        return try await groups.listGroups(caller: caller, userID: userID, ownedOnly: ownedOnly) { ids, snapshot in
            var summaries = self.lookup(ids)
            var found: [String: [UInt8]] = [:]
            for index in ids.indices where summaries[index] == nil {
                guard let group = try snapshot.groups.group(ids[index]) else { continue }
                var json: [UInt8] = []
                GroupInfo(group).writeJSON(to: &json)
                summaries[index] = json
                found[ids[index]] = json
            }
            self.store(found, generation: generation)
            var bytes: [UInt8] = []
            bytes.reserveCapacity(summaries.reduce(2) { $0 + ($1?.count ?? 0) + 1 })
            bytes.append(UInt8(ascii: "["))
            for (index, summary) in summaries.compactMap({ $0 }).enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                bytes.append(contentsOf: summary)
            }
            bytes.append(UInt8(ascii: "]"))
            return bytes
        }
    }
}
