import GuildCore
import Synchronization

/// The areas whose events a store's log holds, with their replay rules: those of ``SQLiteStore/areas``, and
/// any registered later (a test's own area).
public final class SQLiteEventAreas: Sendable {
    private let registered: Mutex<[any SQLiteEventArea]>

    init(_ areas: [any SQLiteEventArea]) {
        self.registered = Mutex(areas)
    }

    /// Registers an area's store side (replacing one registered for the same area). The area name must be
    /// letters, digits or `-` (it is written into replay's SQL).
    public func register(_ area: any SQLiteEventArea) {
        precondition(EventTopic(area.area + ":x")?.area == area.area[...], "an area is letters, digits or -")
        self.registered.withLock { areas in
            areas.removeAll { $0.area == area.area }
            areas.append(area)
        }
    }

    /// Every registered area, in registration order.
    var all: [any SQLiteEventArea] { self.registered.withLock { $0 } }

    /// The visibility condition of a user's replay: each area's condition on its own events.
    static func replayCondition(_ areas: [any SQLiteEventArea]) -> String {
        areas.map { area in
            let prefix = area.area + ":"
            return "(substr(e.topic, 1, \(prefix.utf8.count)) = '\(prefix)' AND (\(area.replayCondition)))"
        }.joined(separator: "\n OR ")
    }
}
