import GuildCore
import PostgresNIO

/// An area's side of the PostgreSQL event log, as `GuildStore.SQLiteEventArea` is SQLite's: what replay and a
/// subscription's starting point need to know of its audience rule. Each area's is an enum next to its event's
/// ``PostgresLoggedEvent`` conformance, named by its area's ``PostgresStoreArea/eventArea``.
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

extension PostgresEventArea {
    /// The sequence numbers of the area's events after `after` that `userID` (on `installationID`'s connection,
    /// for addressed events) may replay, in order: the area's replay rule alone.
    public static func replayable(
        by userID: String,
        installationID: String? = nil,
        after: Int64 = 0,
        on connection: BlockingConnection
    ) throws -> [Int64] {
        guard PostgresTransaction.isStorableKey(userID), installationID.map(PostgresTransaction.isStorableKey) ?? true else { return [] }
        let condition = Self.replayCondition(user: "$1", installation: "$3::text")
        var bindings = PostgresBindings()
        bindings.append(userID)
        bindings.append(after)
        // PostgreSQL refuses a parameter no statement text names: the installation only for areas that read it.
        if condition.contains("$3") { bindings.append(installationID.map { "installation:" + $0 }) }
        let prefix = Self.area + ":"
        let sql = """
            SELECT e.seq FROM event e
            WHERE e.seq > $2 AND substr(e.topic, 1, \(prefix.utf8.count)) = '\(prefix)' AND (\(condition))
            ORDER BY e.seq
            """
        return try connection.query(PostgresQuery(unsafeSQL: sql, binds: bindings)).map { try $0.decode(Int64.self) }
    }
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
