import Synchronization

/// Each thing's state triggers, compiled, as an upload last read them, kept by the thing's trigger revision: a
/// number on the thing's row that every change to its triggers (create, patch, enable, disable, delete) sets to
/// a new random value in the same transaction (``ThingRecords/triggerRevision(thingID:)``). An upload reads the
/// revision and, when it is the one kept, evaluates the kept set without reading a trigger row: with 100 triggers
/// on a thing, reading them cost an upload more than the rest of it (`guild-bench triggers`).
///
/// A set kept under a revision was read after the revision, in the same transaction: the revision's set, or (on
/// PostgreSQL, where another host may commit between the two reads) a newer one, which only a newer revision can
/// have been committed with. A revision a rolled-back transaction wrote is never written again (random, not
/// counted up), so no later commit can be mistaken for it, on this host or on another. An upload
/// never changes the revision: the condition's previous value comes from the previous state, not from the row.
/// Bounded: past ``capacity`` triggers in all (about 100 bytes each) the sets start over.
public final class ThingTriggerSets: Sendable {
    /// A state trigger ready to evaluate.
    public struct Trigger: Sendable {
        public let triggerID: String
        public let enabled: Bool
        public let condition: TriggerConditions.Compiled

        public init(triggerID: String, enabled: Bool, condition: TriggerConditions.Compiled) {
            self.triggerID = triggerID
            self.enabled = enabled
            self.condition = condition
        }
    }

    private struct Entry {
        var revision: Int64
        var triggers: [Trigger]
    }

    private struct Entries {
        var byThing: [String: Entry] = [:]
        /// The triggers of every set, plus one per set (so that empty sets count too).
        var size = 0
    }

    /// How many triggers (plus one per thing) are kept at most.
    public let capacity: Int
    private let entries: Mutex<Entries> = Mutex(Entries())

    public init(capacity: Int = 100_000) {
        self.capacity = max(1, capacity)
    }

    /// The thing's set kept under `revision`; nil when none is (never read, or read under another revision).
    public func triggers(thingID: String, revision: Int64) -> [Trigger]? {
        self.entries.withLock { entries in
            guard let entry = entries.byThing[thingID], entry.revision == revision else { return nil }
            return entry.triggers
        }
    }

    /// Keeps the thing's set as read under `revision`, in place of any other.
    public func keep(_ triggers: [Trigger], thingID: String, revision: Int64) {
        self.entries.withLock { entries in
            if let replaced = entries.byThing[thingID] { entries.size -= replaced.triggers.count + 1 }
            if entries.size + triggers.count + 1 > self.capacity {
                entries.byThing.removeAll(keepingCapacity: true)
                entries.size = 0
            }
            entries.byThing[thingID] = Entry(revision: revision, triggers: triggers)
            entries.size += triggers.count + 1
        }
    }

    /// How many things' sets are kept now.
    public var count: Int { self.entries.withLock { $0.byThing.count } }
}
