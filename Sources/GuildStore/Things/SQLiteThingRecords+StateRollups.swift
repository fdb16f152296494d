import Foundation
import GRDB
import GuildCore
import GuildJSON

/// The states' minute rollups (`thing_state_rollup`, see `StateRollup`): kept with each stored and pruned
/// state, summed per group for grouped history; and the states by time, for the minutes a grouped query reads
/// from the states themselves.
extension SQLiteThingRecords {
    /// Adds a stored state's totals to its minute's rows, one upsert per row (a cached statement).
    func addToRollups(thingID: String, _ state: ThingState) throws {
        let minute = StateRollup.minute(of: state.timestamp)
        let upsert = try self.db.cachedStatement(
            sql: """
                INSERT INTO thing_state_rollup (thingID, field, minute, count, numbers, decimals, sum, minimum, maximum)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (thingID, field, minute) DO UPDATE SET
                    count = count + excluded.count, numbers = numbers + excluded.numbers, decimals = decimals + excluded.decimals,
                    sum = sum + excluded.sum,
                    minimum = coalesce(min(minimum, excluded.minimum), minimum, excluded.minimum),
                    maximum = coalesce(max(maximum, excluded.maximum), maximum, excluded.maximum)
                """
        )
        for (field, totals) in StateRollup.totals(of: state.state) {
            try upsert.execute(
                arguments: StoredText.arguments([
                    thingID, field, minute, totals.count, totals.numbers, totals.decimals, totals.sum, totals.storedMinimum,
                    totals.storedMaximum,
                ])
            )
        }
    }

    /// Takes pruned states' totals from their minutes' rows, then keeps them right (`StateRollup.upkeep`): a
    /// row left with no state is deleted, one left with no number loses its minimum and maximum, and one whose
    /// minimum or maximum went is read again from the minute's states left, or marked stale when they are many.
    func takeFromRollups(thingID: String, _ removed: [ThingState]) throws {
        guard !removed.isEmpty else { return }
        let take = try self.db.cachedStatement(
            sql: """
                UPDATE thing_state_rollup SET count = count - ?, numbers = numbers - ?, decimals = decimals - ?, sum = sum - ?
                WHERE thingID = ? AND field = ? AND minute = ?
                RETURNING count, numbers, minimum, maximum, stale
                """
        )
        let removals = StateRollup.removals(of: removed)
        var left: [StateRollup.Key: (totals: FieldTotals, stale: Bool)] = [:]
        for (key, gone) in removals {
            let row = try Row.fetchOne(
                take,
                arguments: StoredText.arguments([gone.count, gone.numbers, gone.decimals, gone.sum, thingID, key.field, key.minute])
            )
            guard let row else { continue }
            left[key] = (totals: FieldTotals(count: row[0], numbers: row[1], minimum: row[2], maximum: row[3]), stale: row[4] as Bool)
        }
        let upkeep = StateRollup.upkeep(removed: removals, left: left)
        for key in upkeep.emptied {
            try self.writeRollup(thingID: thingID, key: key, FieldTotals(count: left[key]?.totals.count ?? 0))
        }
        for key in upkeep.stale {
            try self.db.cachedStatement(sql: "UPDATE thing_state_rollup SET stale = 1 WHERE thingID = ? AND field = ? AND minute = ?").execute(
                arguments: StoredText.arguments([thingID, key.field, key.minute])
            )
        }
        for (minute, names) in upkeep.recounts {
            let timestamps = StateRollup.timestamps(ofMinute: minute)
            let states = try self.statesByTime(thingID: thingID, from: timestamps.lowerBound, to: timestamps.upperBound)
            for (field, totals) in StateRollup.recount(names, in: states) {
                try self.writeRollup(thingID: thingID, key: StateRollup.Key(minute: minute, field: field), totals)
            }
        }
    }

    /// Sets a row to `totals`, no longer stale; deletes it when they count no state.
    private func writeRollup(thingID: String, key: StateRollup.Key, _ totals: FieldTotals) throws {
        guard totals.count > 0 else {
            try self.db.cachedStatement(sql: "DELETE FROM thing_state_rollup WHERE thingID = ? AND field = ? AND minute = ?").execute(
                arguments: StoredText.arguments([thingID, key.field, key.minute])
            )
            return
        }
        try self.db.cachedStatement(
            sql: """
                UPDATE thing_state_rollup SET count = ?, numbers = ?, decimals = ?, sum = ?, minimum = ?, maximum = ?, stale = 0
                WHERE thingID = ? AND field = ? AND minute = ?
                """
        ).execute(
            arguments: StoredText.arguments([
                totals.count, totals.numbers, totals.decimals, totals.sum, totals.storedMinimum, totals.storedMaximum, thingID, key.field,
                key.minute,
            ])
        )
    }

    func stateRollupsKept() throws -> Bool {
        try Bool.fetchOne(self.db.cachedStatement(sql: "SELECT kept FROM thing_state_rollup_mode")) ?? true
    }

    func keepStateRollups(_ kept: Bool) throws {
        try self.db.execute(sql: "DELETE FROM thing_state_rollup")
        // The states' index by time serves the minutes read from the states beside the rollups; without them a
        // grouped query reads at most the default history's 1,000 states of a thing along its index by id, and
        // every upload and prune is spared the index's upkeep.
        if kept {
            try self.db.execute(sql: "CREATE INDEX IF NOT EXISTS thing_state_time ON thing_state (thingID, timestamp)")
            try self.db.execute(sql: ThingsStoreArea.stateRollupBackfill)
        } else {
            try self.db.execute(sql: "DROP INDEX IF EXISTS thing_state_time")
        }
        try self.db.execute(sql: "UPDATE thing_state_rollup_mode SET kept = ?", arguments: [kept])
    }

    func staleRollupMinutes(thingID: String, minutes: ClosedRange<Int64>) throws -> [Int64] {
        // `stale = 1`, word for word the partial index's condition, so that SQLite reads through it.
        try Int64.fetchAll(
            self.db.cachedStatement(
                sql: """
                    SELECT DISTINCT minute FROM thing_state_rollup
                    WHERE thingID = ? AND stale = 1 AND minute BETWEEN ? AND ? ORDER BY minute
                    """
            ),
            arguments: StoredText.arguments([thingID, minutes.lowerBound, minutes.upperBound])
        )
    }

    func statesByTime(thingID: String, from: Int64, to: Int64) throws -> [ThingState] {
        try Row.fetchAll(
            self.db.cachedStatement(
                sql: "SELECT timestamp, state FROM thing_state WHERE thingID = ? AND timestamp >= ? AND timestamp <= ? ORDER BY timestamp, id"
            ),
            arguments: StoredText.arguments([thingID, from, to])
        ).map { row in ThingState(state: try StoredJSON.object(row[1]), timestamp: row[0]) }
    }

    func stateRollupTotals(
        thingID: String,
        fields: [String],
        minutes: ClosedRange<Int64>,
        excluding: [Int64],
        lead: Int64,
        interval: Int64
    ) throws -> [(group: Int, field: String, totals: FieldTotals)] {
        // The fields and the excluded minutes as JSON arrays, so that one cached statement serves every query.
        let fieldList = JSONValue.array(fields.map { .string($0) }).jsonText
        let excludedList = "[" + excluding.map { String($0) }.joined(separator: ",") + "]"
        return try Row.fetchAll(
            self.db.cachedStatement(
                sql: """
                    SELECT ((minute - :first) * 60000 + :lead) / :interval AS grouped, field,
                        sum(count), sum(numbers), sum(decimals), total(sum), min(minimum), max(maximum)
                    FROM thing_state_rollup
                    WHERE thingID = :thing AND field IN (SELECT value FROM json_each(:fields)) AND minute BETWEEN :first AND :last
                        AND minute NOT IN (SELECT value FROM json_each(:excluding))
                    GROUP BY grouped, field
                    """
            ),
            arguments: [
                "thing": StoredText.value(thingID), "fields": StoredText.value(fieldList), "excluding": excludedList,
                "first": minutes.lowerBound, "last": minutes.upperBound, "lead": lead, "interval": interval,
            ]
        ).map { row in
            let totals = FieldTotals(count: row[2], numbers: row[3], decimals: row[4], sum: row[5], minimum: row[6], maximum: row[7])
            return (group: Int(row[0] as Int64), field: row.text(at: 1) ?? "", totals: totals)
        }
    }

    /// How many (thing, minute) pairs the states and the rollups' state counts disagree on (see
    /// ``thingInvariantViolations()``).
    static let uncountedMinutes = """
        SELECT (SELECT count(*) FROM (
            SELECT thingID, CASE WHEN timestamp >= 0 THEN timestamp / 60000 ELSE (timestamp + 1) / 60000 - 1 END, count(*)
            FROM thing_state GROUP BY 1, 2
            EXCEPT SELECT thingID, minute, count FROM thing_state_rollup WHERE field = ''
        )) + (SELECT count(*) FROM (
            SELECT thingID, minute, count FROM thing_state_rollup WHERE field = ''
            EXCEPT SELECT thingID, CASE WHEN timestamp >= 0 THEN timestamp / 60000 ELSE (timestamp + 1) / 60000 - 1 END, count(*)
            FROM thing_state GROUP BY 1, 2
        ))
        """
}
