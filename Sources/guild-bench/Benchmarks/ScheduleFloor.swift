import Foundation
import GRDB
import GuildHarness

/// The engine's floor under schedules due at one instant: the rows the daemon writes for each `NOTIFY` firing
/// (its trigger's due time advanced, the `triggerFired` event and its reader rows, the firing's result with its
/// ordinal), written by plain SQLite through GRDB in the bench's own process, as cheaply as SQL allows: 500
/// firings a transaction (the daemon's runner batch), each step one statement per 100 rows, WAL and
/// synchronous=FULL like the daemon. No JSON-RPC, no event fan-out, no per-firing Swift work: what SQLite alone
/// needs on this machine to make that many firings durable.
///
/// The tables and indexes are the daemon's own, read from its database (`sqlite_master`), and each event's body
/// and reader rows are copied from a `triggerFired` event the daemon stored, so the floor writes the same rows,
/// of the same sizes, into the same indexes.
final class ScheduleFloor: Sendable {
    private let queue: DatabaseQueue
    private let body: Data
    private let principals: [String]

    /// The daemon's runner fires at most this many in one write transaction (`ScheduleRunner.batch`).
    static let batch = 500
    /// Rows per multi-row statement.
    static let rowsPerStatement = 100

    /// A floor database at `path` with the trigger and event tables of the daemon database at `daemonDatabase`,
    /// and `things` × `perThing` single-time `NOTIFY` triggers all due at the same instant. The daemon's database
    /// must hold a `triggerFired` event (read after the daemon fired its own). Blocking.
    init(path: String, daemonDatabase: String, things: Int, perThing: Int) throws {
        var readOnly = Configuration()
        readOnly.readonly = true
        let daemon = try DatabaseQueue(path: daemonDatabase, configuration: readOnly)
        let (schema, sample) = try daemon.read { db in
            let schema = try String.fetchAll(
                db,
                sql: """
                    SELECT sql FROM sqlite_master
                    WHERE tbl_name IN ('thing_trigger', 'thing_trigger_result', 'event', 'thing_event_reader') AND sql IS NOT NULL
                    ORDER BY type = 'index', rowid
                    """
            )
            let event = try Row.fetchOne(db, sql: "SELECT seq, body FROM event WHERE kind = 'triggerFired' ORDER BY seq DESC LIMIT 1")
            let trigger = try Row.fetchOne(db, sql: "SELECT triggerID, thingID, predicate, creator FROM thing_trigger LIMIT 1")
            guard let event, let trigger else { return (schema, nil as (Row, Row, [String])?) }
            let principals = try String.fetchAll(
                db,
                sql: "SELECT principal FROM thing_event_reader WHERE seq = ?",
                arguments: [event["seq"] as Int64]
            )
            return (schema, (event, trigger, principals))
        }
        try daemon.close()
        guard schema.count >= 4, let (event, trigger, principals) = sample else {
            throw DaemonError("schedule floor: the daemon's database has no triggerFired event or trigger tables to copy")
        }
        self.body = event["body"]
        self.principals = principals

        var config = Configuration()
        config.label = "schedule-floor"
        // The daemon's tables refer to `thing` and `user`, which the floor does not have.
        config.foreignKeysEnabled = false
        config.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
        self.queue = try DatabaseQueue(path: path, configuration: config)
        let triggerIDLength = (trigger["triggerID"] as String).utf8.count
        let thingIDLength = (trigger["thingID"] as String).utf8.count
        let creator: String? = trigger["creator"]
        try self.queue.writeWithoutTransaction { db in
            let mode = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL")
            guard mode?.lowercased() == "wal" else { throw DaemonError("schedule floor: journal_mode is \(mode ?? "nil"), not wal") }
            for statement in schema { try db.execute(sql: statement) }
            try db.inTransaction {
                for _ in 0..<things {
                    let thingID = Self.randomHex(thingIDLength)
                    for _ in 0..<perThing {
                        try db.execute(
                            sql: """
                                INSERT INTO thing_trigger (triggerID, thingID, predicate, action, enabled, nextFire, creator, created, modified)
                                VALUES (?, ?, ?, 'NOTIFY', 1, 1, ?, 1, 1)
                                """,
                            arguments: [Self.randomHex(triggerIDLength), thingID, trigger["predicate"] as Data, creator]
                        )
                    }
                }
                return .commit
            }
        }
    }

    /// Fires every due trigger as described above; returns the milliseconds from the first batch's start to the
    /// last one's durable commit, and how many fired. Blocking.
    func fireAll() throws -> (milliseconds: Double, fired: Int) {
        let start = monotonicNanos()
        var fired = 0
        while true {
            let count = try self.queue.writeWithoutTransaction { db in
                var count = 0
                try db.inTransaction(.immediate) {
                    count = try self.fireBatch(db)
                    return .commit
                }
                return count
            }
            guard count > 0 else { break }
            fired += count
        }
        return (Double(monotonicNanos() - start) / 1e6, fired)
    }

    private func fireBatch(_ db: Database) throws -> Int {
        // Cached statements, as the daemon's: a multi-row statement takes longer to compile than to run.
        let due = try Row.fetchAll(
            db.cachedStatement(
                sql: """
                    UPDATE thing_trigger SET nextFire = NULL WHERE id IN (
                        SELECT id FROM thing_trigger WHERE nextFire IS NOT NULL AND enabled = 1 AND nextFire <= 1 ORDER BY nextFire LIMIT ?)
                    RETURNING triggerID, thingID
                    """
            ),
            arguments: [Self.batch]
        ).map { (triggerID: $0[0] as String, thingID: $0[1] as String) }
        var offset = 0
        while offset < due.count {
            let rows = due[offset..<min(offset + Self.rowsPerStatement, due.count)]
            offset += rows.count
            let events = Self.rows("('things', 'triggerFired', 'owners', ?, 1)", rows.count)
            let seqs = try Int64.fetchAll(
                db.cachedStatement(sql: "INSERT INTO event (topic, kind, audience, body, time) VALUES \(events) RETURNING seq"),
                arguments: StatementArguments(Array(repeating: self.body, count: rows.count))
            )
            var readers: [(any DatabaseValueConvertible)?] = []
            for seq in seqs {
                for principal in self.principals { readers += [seq, principal] }
            }
            if !readers.isEmpty {
                try db.cachedStatement(
                    sql: "INSERT OR IGNORE INTO thing_event_reader (seq, principal) VALUES \(Self.rows("(?, ?)", readers.count / 2))"
                ).execute(arguments: StatementArguments(readers))
            }
            var results: [(any DatabaseValueConvertible)?] = []
            for row in rows { results += [row.triggerID, row.thingID, row.triggerID] }
            let result = """
                (?, ?, 1, 1, 'SCHEDULE_ONCE', 'NOTIFIED', NULL, NULL,
                    coalesce((SELECT ordinal FROM thing_trigger_result WHERE triggerID = ? ORDER BY id DESC LIMIT 1), 0) + 1)
                """
            try db.cachedStatement(
                sql: """
                    INSERT INTO thing_trigger_result (triggerID, thingID, firedAt, dueAt, cause, outcome, commandID, reason, ordinal)
                    VALUES \(Self.rows(result, rows.count))
                    """
            ).execute(arguments: StatementArguments(results))
        }
        return due.count
    }

    func close() throws {
        try self.queue.close()
    }

    /// `count` copies of a row's values, for a multi-row `VALUES`.
    private static func rows(_ row: String, _ count: Int) -> String {
        Array(repeating: row, count: count).joined(separator: ", ")
    }

    private static func randomHex(_ length: Int) -> String {
        String((0..<length).map { _ in "0123456789abcdef".randomElement()! })
    }
}
