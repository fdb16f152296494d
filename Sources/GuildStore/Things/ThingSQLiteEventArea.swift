import GRDB
import GuildCore

/// The things area's side of the event log: replay shows a thing event to the principals it named (users,
/// the thing itself; `installation:<id>` for a command's result, matched against the subscription's
/// installation) and to the members, at the time, of the owner groups it named.
struct ThingSQLiteEventArea: SQLiteEventArea {
    static let readers = SQLiteEventReaders(
        readers: "thing_event_reader",
        principal: "principal",
        groups: "thing_event_group",
        principalMatch: "IN (:user, :installation)"
    )

    var area: String { ThingEventAudience.thingArea }

    var replayCondition: String { Self.readers.replayCondition }

    /// Thing events are addressed, never followed.
    func following(userID: String, in db: Database) throws -> [EventTopic] { [] }

    func pruned(in db: Database) throws { try Self.readers.pruned(in: db) }
}

extension ThingEvent: SQLiteLoggedEvent {
    public func recordAudience(seq: Int64, in db: Database) throws {
        let principals =
            self.audience.installations.isEmpty
            ? self.audience.principals : self.audience.installations.map { "installation:" + $0 }
        try ThingSQLiteEventArea.readers.record(seq: seq, principals: principals, groups: self.audience.groups, in: db)
    }
}
