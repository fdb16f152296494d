import GuildJSON

/// A thing's states summed up per minute of their timestamps (the table `thing_state_rollup`), so that a
/// grouped history reads a row per minute and field instead of every state: one row per thing, field and
/// minute with the field's ``FieldTotals`` over the minute's states, and a row for ``statesField`` counting
/// the minute's states. Each stored state adds its totals to its minute's rows; each pruned state takes them
/// away (see ``removals(of:)``).
public enum StateRollup {
    /// A minute, in ms.
    public static let minuteLength: Int64 = 60_000

    /// The field of the row that counts the states themselves (no top-level field is named so: see
    /// ``isRolledUp(_:)``).
    public static let statesField = ""

    /// The minute `timestamp` falls in: minutes since the Unix epoch, rounded down (also before 1970).
    public static func minute(of timestamp: Int64) -> Int64 {
        timestamp >= 0 ? timestamp / Self.minuteLength : (timestamp + 1) / Self.minuteLength - 1
    }

    /// How far into its minute `timestamp` is, 0 to 59,999 ms.
    public static func offset(of timestamp: Int64) -> Int64 {
        let remainder = timestamp % Self.minuteLength
        return remainder < 0 ? remainder + Self.minuteLength : remainder
    }

    /// The timestamps of `minute`, clamped to what an `Int64` holds.
    public static func timestamps(ofMinute minute: Int64) -> ClosedRange<Int64> {
        let (start, overflow) = minute.multipliedReportingOverflow(by: Self.minuteLength)
        if overflow { return minute < 0 ? Int64.min...Int64.min : Int64.max...Int64.max }
        let (end, past) = start.addingReportingOverflow(Self.minuteLength - 1)
        return start...(past ? Int64.max : end)
    }

    /// Whether a top-level field has rollups: not the empty name (``statesField``), and no U+0000 (which
    /// PostgreSQL's text cannot hold). An aggregation of another field finds no values.
    public static func isRolledUp(_ field: String) -> Bool {
        !field.isEmpty && !field.utf8.contains(0)
    }

    /// What one state adds to its minute's rows: a count of 1 for ``statesField``, and each rolled-up
    /// top-level field's value.
    public static func totals(of state: [String: JSONValue]) -> [String: FieldTotals] {
        var totals: [String: FieldTotals] = [Self.statesField: FieldTotals(count: 1)]
        for (field, value) in state where Self.isRolledUp(field) {
            var fieldTotals = FieldTotals()
            fieldTotals.add(value)
            totals[field] = fieldTotals
        }
        return totals
    }

    /// One row of the rollups: a field (or ``statesField``) in a minute.
    public struct Key: Sendable, Hashable {
        public var minute: Int64
        public var field: String

        public init(minute: Int64, field: String) {
            self.minute = minute
            self.field = field
        }
    }

    /// What removing `states` takes from each row they added to.
    public static func removals(of states: [ThingState]) -> [Key: FieldTotals] {
        var removals: [Key: FieldTotals] = [:]
        for state in states {
            let minute = Self.minute(of: state.timestamp)
            for (field, totals) in Self.totals(of: state.state) {
                removals[Key(minute: minute, field: field), default: FieldTotals()].merge(totals)
            }
        }
        return removals
    }

    /// Whether a row left with `remaining` after `removed` was taken from it needs its minimum and maximum
    /// read again from the minute's states: it still has numbers, and a removed number was its minimum or its
    /// maximum (which a subtraction cannot restore).
    public static func needsRecount(remaining: FieldTotals, removed: FieldTotals) -> Bool {
        remaining.numbers > 0 && removed.numbers > 0 && (removed.minimum <= remaining.minimum || removed.maximum >= remaining.maximum)
    }

    /// The most states a minute may have left for a prune to read them again at once. Past it the row is only
    /// marked stale, and queries read that minute from its states, until a prune leaves it this few: pruning
    /// takes the oldest state, which holds its minute's minimum or maximum of any rising or falling field (a
    /// counter, a clock), so reading the minute at each prune would cost an upload a minute's states.
    public static let recountLimit: Int64 = 64

    /// What a prune does to the rows it took from, besides the subtraction.
    public struct Upkeep: Sendable, Hashable {
        /// Rows left with no state (to delete) or with no number (to keep as a count).
        public var emptied: [Key] = []
        /// Minutes whose states are read again now, with the fields whose rows are then rewritten.
        public var recounts: [Int64: Set<String>] = [:]
        /// Rows to mark stale.
        public var stale: [Key] = []

        public init() {}
    }

    /// What to do with each row a prune took `removed` from, given what is `left` of it (and whether it was
    /// already stale): empty it, recount its minute now (``recountLimit`` states or fewer left in it), or mark
    /// it stale.
    public static func upkeep(removed: [Key: FieldTotals], left: [Key: (totals: FieldTotals, stale: Bool)]) -> Upkeep {
        var upkeep = Upkeep()
        for (key, row) in left {
            let gone = removed[key] ?? FieldTotals()
            if row.totals.count <= 0 || (row.totals.numbers <= 0 && (gone.numbers > 0 || row.stale)) {
                upkeep.emptied.append(key)
            } else if row.stale || Self.needsRecount(remaining: row.totals, removed: gone) {
                let minuteStates = left[Key(minute: key.minute, field: Self.statesField)]?.totals.count ?? 0
                if minuteStates <= Self.recountLimit {
                    upkeep.recounts[key.minute, default: []].insert(key.field)
                } else if !row.stale {
                    upkeep.stale.append(key)
                }
            }
        }
        return upkeep
    }

    /// The totals of `fields` over a minute's states (the rows to write back after a recount); a field none of
    /// them has gets empty totals (its row is deleted).
    public static func recount(_ fields: some Sequence<String>, in states: [ThingState]) -> [String: FieldTotals] {
        var totals: [String: FieldTotals] = [:]
        for field in fields { totals[field] = FieldTotals() }
        for state in states {
            for (field, value) in Self.totals(of: state.state) where totals[field] != nil {
                totals[field]?.merge(value)
            }
        }
        return totals
    }
}
