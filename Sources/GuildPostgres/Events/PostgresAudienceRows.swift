import GuildCore
import PostgresNIO

/// Who may replay the events of one shared transaction (the rows a ``GuildCore/ReplayRule`` names), gathered as
/// the transaction's operations append events and inserted at its tail beside the events themselves, in the tail's
/// one statement (``PostgresEventLog/tail(_:audience:messages:)``): one part per table for the whole batch, instead
/// of one to three statements per event, and no round trip of their own (postgres-nio sends a statement only when
/// the one before it is answered). The events' numbers are recorded as they stand until the tail
/// (``PostgresEventLog/provisional(_:)``), which numbers the rows with the events.
///
/// Nothing inside a write transaction reads these rows (replay reads them once committed), so inserting them at
/// the tail changes nothing an operation sees. Their inserts cannot fail on the data (`ON CONFLICT DO NOTHING`,
/// no foreign keys, names holding U+0000 left out), so taking them out of the operations' savepoints blames no
/// error on the wrong operation.
///
/// Used only on the writer's thread, for one attempt at a batch.
public final class PostgresAudienceRows {
    /// An audience table and the column that names who: `(seq, <column>)` rows.
    private struct Table: Hashable {
        var name: String
        var column: String
    }

    private struct Row {
        var table: Table
        var seq: Int64
        var name: String
    }

    /// A membership of a topic's group that an event opens or closes (`membership_history`).
    private struct Change {
        var member: Member
        var seq: Int64
        var opens: Bool
    }

    private struct Member: Hashable {
        var groupID: String
        var userID: String
    }

    private var rows: [Row] = []
    private var changes: [Change] = []

    init() {}

    /// Where an operation starts, to drop what it recorded if its savepoint rolls back.
    var mark: (rows: Int, changes: Int) { (self.rows.count, self.changes.count) }

    /// Drops what was recorded since `mark`.
    func rollBack(to mark: (rows: Int, changes: Int)) {
        self.rows.removeSubrange(mark.rows...)
        self.changes.removeSubrange(mark.changes...)
    }

    /// Records `(seq, name)` rows of `table`, whose naming column is `column`.
    func add(_ names: [String], seq: Int64, table: String, column: String) {
        let table = Table(name: table, column: column)
        for name in names where PostgresTransaction.isStorableKey(name) {
            self.rows.append(Row(table: table, seq: seq, name: name))
        }
    }

    /// Records that `userIDs` became members of `groupID` with the event `seq` (they replay from there on).
    func open(_ userIDs: [String], groupID: String, seq: Int64) {
        self.record(userIDs, groupID: groupID, seq: seq, opens: true)
    }

    /// Records that `userIDs` stopped being members of `groupID` with the event `seq` (they replay up to it).
    func close(_ userIDs: [String], groupID: String, seq: Int64) {
        self.record(userIDs, groupID: groupID, seq: seq, opens: false)
    }

    private func record(_ userIDs: [String], groupID: String, seq: Int64, opens: Bool) {
        guard PostgresTransaction.isStorableKey(groupID) else { return }
        for userID in userIDs where PostgresTransaction.isStorableKey(userID) {
            self.changes.append(Change(member: Member(groupID: groupID, userID: userID), seq: seq, opens: opens))
        }
    }

    /// The statements that insert the recorded rows, their values bound into `statement`: parts of the batch's
    /// tail, one statement (``PostgresEventLog/tail(_:audience:messages:)``), which PostgreSQL runs on one
    /// snapshot. `base` is the tail's expression for the head its events are numbered from: a provisional number
    /// `p` is the event `base - p`.
    func parts(binding statement: inout PostgresStatement, base: String) -> [String] {
        self.rowParts(binding: &statement, base: base) + self.changeParts(binding: &statement, base: base)
    }

    /// One `INSERT ... SELECT FROM unnest(...)` per table, in the order the tables were first named.
    private func rowParts(binding statement: inout PostgresStatement, base: String) -> [String] {
        var tables: [Table] = []
        var columns: [Table: (seqs: [Int64], names: [String])] = [:]
        for row in self.rows {
            if columns[row.table] == nil { tables.append(row.table) }
            columns[row.table, default: ([], [])].seqs.append(row.seq)
            columns[row.table, default: ([], [])].names.append(row.name)
        }
        var parts: [String] = []
        for table in tables {
            guard let (seqs, names) = columns[table] else { continue }
            parts.append(
                """
                INSERT INTO \(table.name) (seq, \(table.column))
                SELECT \(base) - r.seq, r.name FROM unnest(\(statement.bind(seqs))::bigint[], \(statement.bind(names))::text[]) AS r (seq, name)
                ON CONFLICT DO NOTHING
                """
            )
        }
        return parts
    }

    /// The batch's membership intervals, as its events opened and closed them in order: an interval the batch
    /// opens is inserted with its end if the batch also closes it; an interval opened before the batch is closed
    /// by one UPDATE, which cannot touch the batch's own open intervals: the tail's parts all see the rows as they
    /// were before it, never each other's.
    private func changeParts(binding statement: inout PostgresStatement, base: String) -> [String] {
        guard !self.changes.isEmpty else { return [] }
        var opened: [(member: Member, from: Int64, to: Int64?)] = []
        var openIndex: [Member: Int] = [:]
        var closed: [(member: Member, seq: Int64)] = []
        var closedMembers: Set<Member> = []
        for change in self.changes {
            if change.opens {
                openIndex[change.member] = opened.count
                opened.append((change.member, change.seq, nil))
            } else if let index = openIndex.removeValue(forKey: change.member) {
                opened[index].to = change.seq
            } else if closedMembers.insert(change.member).inserted {
                closed.append((change.member, change.seq))
            }
        }
        var parts: [String] = []
        if !closed.isEmpty {
            let groups = statement.bind(closed.map(\.member.groupID))
            let users = statement.bind(closed.map(\.member.userID))
            let seqs = statement.bind(closed.map(\.seq))
            parts.append(
                """
                UPDATE membership_history h SET to_seq = \(base) - c.seq
                FROM unnest(\(groups)::text[], \(users)::text[], \(seqs)::bigint[]) AS c (group_id, user_id, seq)
                WHERE h.group_id = c.group_id AND h.user_id = c.user_id AND h.to_seq IS NULL
                """
            )
        }
        if !opened.isEmpty {
            // An interval still open has no end: 0, which no provisional number is, stands for NULL in the array.
            let groups = statement.bind(opened.map(\.member.groupID))
            let users = statement.bind(opened.map(\.member.userID))
            let froms = statement.bind(opened.map(\.from))
            let tos = statement.bind(opened.map { $0.to ?? 0 })
            parts.append(
                """
                INSERT INTO membership_history (group_id, user_id, from_seq, to_seq)
                SELECT o.group_id, o.user_id, \(base) - o.from_seq, \(base) - nullif(o.to_seq, 0)
                FROM unnest(\(groups)::text[], \(users)::text[], \(froms)::bigint[], \(tos)::bigint[])
                    AS o (group_id, user_id, from_seq, to_seq)
                """
            )
        }
        return parts
    }
}
