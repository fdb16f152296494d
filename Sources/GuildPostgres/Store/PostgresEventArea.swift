import GuildCore

/// An area's side of the PostgreSQL event log, as `GuildStore.SQLiteEventArea` is SQLite's: what replay and a
/// subscription's starting point need to know of its audience rule. Each area's is an enum next to its event's
/// ``PostgresLoggedEvent`` conformance; ``PostgresStore/areas`` lists them.
public protocol PostgresEventArea: SendableMetatype {
    /// The topic area, e.g. `group`.
    static var area: String { get }
    /// An SQL condition over the `event` row `e`: true when the user bound as `user` (a placeholder such as
    /// `$4`) may see the event in replay; `installation` is the subscriber's installation principal
    /// (`installation:<id>`, or NULL).
    static func replayCondition(user: String, installation: String) -> String
    /// The topics `userID` follows now.
    static func following(userID: String, on connection: BlockingConnection) throws -> [EventTopic]
    /// Drops what the area keeps for replay of events no longer kept, after old events were pruned.
    static func pruned(on connection: BlockingConnection) throws
}

extension GroupPostgresEventArea: PostgresEventArea {
    public static var area: String { GroupEventAudience.groupArea }

    public static func replayCondition(user: String, installation: String) -> String {
        Self.replayCondition(user: user)
    }
}

extension ObjectPostgresEventArea: PostgresEventArea {
    public static var area: String { ObjectEventAudience.bucketArea }

    public static func replayCondition(user: String, installation: String) -> String {
        Self.replayCondition(user: user)
    }
}

extension ThingPostgresEventArea: PostgresEventArea {
    public static var area: String { ThingEventAudience.thingArea }

    /// Thing events are addressed, never followed.
    public static func following(userID: String, on connection: BlockingConnection) throws -> [EventTopic] { [] }
}
