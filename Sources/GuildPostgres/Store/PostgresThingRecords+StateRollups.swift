import GuildCore
import GuildJSON
import NIOCore
import PostgresNIO

/// The states' minute rollups (`thing_state_rollup`, see `StateRollup`), as SQLite's store keeps them: added to
/// with each stored state in one upsert, taken from with each prune in one update, summed per group for grouped
/// history; and the states by time, for the minutes a grouped query reads from the states themselves.
extension PostgresThingRecords {
    /// Adds a stored state's totals to its minute's rows, in one statement. Several hosts adding to the same row
    /// at once wait on its lock in turn.
    func addToRollups(thingID: String, _ state: ThingState) throws {
        let rows = StateRollup.totals(of: state.state).sorted { $0.key < $1.key }
        let fields: [String] = rows.map { $0.key }
        let counts: [Int64] = rows.map { $0.value.count }
        let numbers: [Int64] = rows.map { $0.value.numbers }
        let decimals: [Int64] = rows.map { $0.value.decimals }
        let sums: [Double] = rows.map { $0.value.sum }
        // A minimum or maximum of no number travels as ±infinity, which the insert turns into NULL.
        let minimums: [Double] = rows.map { $0.value.minimum }
        let maximums: [Double] = rows.map { $0.value.maximum }
        try self.connection.execute(
            """
            INSERT INTO thing_state_rollup AS r (thing_id, field, minute, count, numbers, decimals, sum, minimum, maximum)
            SELECT \(thingID), f.field, \(StateRollup.minute(of: state.timestamp)), f.count, f.numbers, f.decimals, f.sum,
                NULLIF(f.minimum, 'Infinity'), NULLIF(f.maximum, '-Infinity')
            FROM unnest(
                \(fields)::text[], \(counts)::bigint[], \(numbers)::bigint[], \(decimals)::bigint[], \(sums)::double precision[],
                \(minimums)::double precision[], \(maximums)::double precision[]
            ) AS f (field, count, numbers, decimals, sum, minimum, maximum)
            ON CONFLICT (thing_id, field, minute) DO UPDATE SET
                count = r.count + excluded.count, numbers = r.numbers + excluded.numbers,
                decimals = r.decimals + excluded.decimals, sum = r.sum + excluded.sum,
                minimum = LEAST(r.minimum, excluded.minimum), maximum = GREATEST(r.maximum, excluded.maximum)
            """
        )
    }

    /// Takes pruned states' totals from their minutes' rows in one update, then keeps them right
    /// (`StateRollup.upkeep`): a row left with no state is deleted, one left with no number loses its minimum
    /// and maximum, and one whose minimum or maximum went is read again from the minute's states left, or marked
    /// stale when they are many.
    func takeFromRollups(thingID: String, _ removed: [ThingState]) throws {
        let removals = StateRollup.removals(of: removed)
        guard !removals.isEmpty else { return }
        let ordered = removals.sorted { ($0.key.minute, $0.key.field) < ($1.key.minute, $1.key.field) }
        let fields: [String] = ordered.map { $0.key.field }
        let minutes: [Int64] = ordered.map { $0.key.minute }
        let counts: [Int64] = ordered.map { $0.value.count }
        let numbers: [Int64] = ordered.map { $0.value.numbers }
        let decimals: [Int64] = ordered.map { $0.value.decimals }
        let sums: [Double] = ordered.map { $0.value.sum }
        let rows = try self.connection.query(
            """
            UPDATE thing_state_rollup r SET count = r.count - g.count, numbers = r.numbers - g.numbers,
                decimals = r.decimals - g.decimals, sum = r.sum - g.sum
            FROM unnest(
                \(fields)::text[], \(minutes)::bigint[], \(counts)::bigint[], \(numbers)::bigint[], \(decimals)::bigint[],
                \(sums)::double precision[]
            ) AS g (field, minute, count, numbers, decimals, sum)
            WHERE r.thing_id = \(thingID) AND r.field = g.field AND r.minute = g.minute
            RETURNING r.field, r.minute, r.count, r.numbers, r.minimum, r.maximum, r.stale
            """
        )
        var left: [StateRollup.Key: (totals: FieldTotals, stale: Bool)] = [:]
        for row in rows {
            let (field, minute, count, numbers, minimum, maximum, stale) = try row.decode(
                (String, Int64, Int64, Int64, Double?, Double?, Bool).self
            )
            let totals = FieldTotals(count: count, numbers: numbers, minimum: minimum, maximum: maximum)
            left[StateRollup.Key(minute: minute, field: field)] = (totals: totals, stale: stale)
        }
        let upkeep = StateRollup.upkeep(removed: removals, left: left)
        for key in upkeep.emptied {
            try self.writeRollup(thingID: thingID, key: key, FieldTotals(count: left[key]?.totals.count ?? 0))
        }
        if !upkeep.stale.isEmpty {
            let staleFields: [String] = upkeep.stale.map(\.field)
            let staleMinutes: [Int64] = upkeep.stale.map(\.minute)
            try self.connection.execute(
                """
                UPDATE thing_state_rollup r SET stale = true
                FROM unnest(\(staleFields)::text[], \(staleMinutes)::bigint[]) AS k (field, minute)
                WHERE r.thing_id = \(thingID) AND r.field = k.field AND r.minute = k.minute
                """
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
            try self.connection.execute(
                "DELETE FROM thing_state_rollup WHERE thing_id = \(thingID) AND field = \(key.field) AND minute = \(key.minute)"
            )
            return
        }
        try self.connection.execute(
            """
            UPDATE thing_state_rollup SET count = \(totals.count), numbers = \(totals.numbers), decimals = \(totals.decimals),
                sum = \(totals.sum), minimum = \(totals.storedMinimum), maximum = \(totals.storedMaximum), stale = false
            WHERE thing_id = \(thingID) AND field = \(key.field) AND minute = \(key.minute)
            """
        )
    }

    /// Whether uploads keep the rollups (`thing_state_rollup_mode`).
    public func stateRollupsKept() throws -> Bool {
        try self.connection.query("SELECT kept FROM thing_state_rollup_mode").first?.decode(Bool.self) ?? true
    }

    /// Empties the rollups and, when `kept`, fills them from the states kept, as version 26 did.
    public func keepStateRollups(_ kept: Bool) throws {
        try self.connection.execute("DELETE FROM thing_state_rollup")
        // The states' index by time only while the rollups are kept (see SQLite's `keepStateRollups`).
        if kept {
            try self.connection.execute("CREATE INDEX IF NOT EXISTS thing_state_time ON thing_state (thing_id, timestamp)")
            try self.connection.execute(PostgresQuery(unsafeSQL: PostgresMigration.stateRollupBackfill))
        } else {
            try self.connection.execute("DROP INDEX IF EXISTS thing_state_time")
        }
        try self.connection.execute("UPDATE thing_state_rollup_mode SET kept = \(kept)")
    }

    /// The minutes in `minutes` with a stale rollup, through `thing_state_rollup_stale`.
    public func staleRollupMinutes(thingID: String, minutes: ClosedRange<Int64>) throws -> [Int64] {
        guard Self.isStorableKey(thingID) else { return [] }
        return try self.connection.query(
            """
            SELECT DISTINCT minute FROM thing_state_rollup
            WHERE thing_id = \(thingID) AND stale AND minute BETWEEN \(minutes.lowerBound) AND \(minutes.upperBound) ORDER BY minute
            """
        ).map { row in try row.decode(Int64.self) }
    }

    /// A thing's states with `from <= timestamp <= to`, by timestamp, through `thing_state_time`.
    public func statesByTime(thingID: String, from: Int64, to: Int64) throws -> [ThingState] {
        guard Self.isStorableKey(thingID) else { return [] }
        return try self.connection.query(
            """
            SELECT timestamp, state FROM thing_state
            WHERE thing_id = \(thingID) AND timestamp >= \(from) AND timestamp <= \(to) ORDER BY timestamp, id
            """
        ).map { row in
            let (timestamp, state) = try row.decode((Int64, ByteBuffer).self)
            return ThingState(state: try Self.object(state), timestamp: timestamp)
        }
    }

    /// A thing's minute rollups summed per group and field, in one query.
    public func stateRollupTotals(
        thingID: String,
        fields: [String],
        minutes: ClosedRange<Int64>,
        excluding: [Int64],
        lead: Int64,
        interval: Int64
    ) throws -> [(group: Int, field: String, totals: FieldTotals)] {
        let fields = fields.filter(Self.isStorableKey)
        guard Self.isStorableKey(thingID), !fields.isEmpty else { return [] }
        return try self.connection.query(
            """
            SELECT ((minute - \(minutes.lowerBound)) * 60000 + \(lead)) / \(interval), field,
                sum(count)::bigint, sum(numbers)::bigint, sum(decimals)::bigint, sum(sum), min(minimum), max(maximum)
            FROM thing_state_rollup
            WHERE thing_id = \(thingID) AND field = ANY(\(fields)::text[])
                AND minute BETWEEN \(minutes.lowerBound) AND \(minutes.upperBound) AND NOT (minute = ANY(\(excluding)::bigint[]))
            GROUP BY 1, 2
            """
        ).map { row in
            let (group, field, count, numbers, decimals, sum, minimum, maximum) = try row.decode(
                (Int64, String, Int64, Int64, Int64, Double, Double?, Double?).self
            )
            let totals = FieldTotals(count: count, numbers: numbers, decimals: decimals, sum: sum, minimum: minimum, maximum: maximum)
            return (group: Int(group), field: field, totals: totals)
        }
    }

    /// How many (thing, minute) pairs the states and the rollups' state counts disagree on (see
    /// ``thingInvariantViolations()``).
    static let uncountedMinutes = """
        SELECT (SELECT count(*) FROM (
            SELECT thing_id, CASE WHEN timestamp >= 0 THEN timestamp / 60000 ELSE (timestamp + 1) / 60000 - 1 END, count(*)
            FROM thing_state GROUP BY 1, 2
            EXCEPT SELECT thing_id, minute, count FROM thing_state_rollup WHERE field = ''
        ) AS missing) + (SELECT count(*) FROM (
            SELECT thing_id, minute, count FROM thing_state_rollup WHERE field = ''
            EXCEPT SELECT thing_id, CASE WHEN timestamp >= 0 THEN timestamp / 60000 ELSE (timestamp + 1) / 60000 - 1 END, count(*)
            FROM thing_state GROUP BY 1, 2
        ) AS extra)
        """
}
