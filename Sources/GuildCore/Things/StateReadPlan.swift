/// How a grouped state history is read (``StateGrouping/plan``): the minute rollups (``StateRollup``) of the
/// minutes wholly inside the range, but for those a boundary between two groups falls inside; the states
/// themselves for the rest (the range's partial first and last minutes, and those split minutes).
public struct StateReadPlan: Sendable, Hashable {
    /// The minutes wholly inside the range; nil when there is none.
    public var wholeMinutes: ClosedRange<Int64>?
    /// The ms from the range's start to the start of its first whole minute (0 to 59,999): minute `m` of
    /// ``wholeMinutes`` is in group `((m - wholeMinutes.lowerBound) * 60,000 + lead) / interval`.
    public var lead: Int64
    /// Whole minutes read from their states rather than their rollups, in order: those a boundary between two
    /// groups falls inside (and those whose rollups are stale, see ``readingFromStates(_:)``).
    public var splitMinutes: [Int64]
    /// The timestamps whose states are read, in order, neither overlapping nor adjacent.
    public var stateRanges: [ClosedRange<Int64>]

    public init(wholeMinutes: ClosedRange<Int64>?, lead: Int64, splitMinutes: [Int64], stateRanges: [ClosedRange<Int64>]) {
        self.wholeMinutes = wholeMinutes
        self.lead = lead
        self.splitMinutes = splitMinutes
        self.stateRanges = stateRanges
    }
}

extension StateReadPlan {
    /// The plan with `minutes` (whole minutes whose rollups cannot be used, such as stale ones) read from their
    /// states too.
    public func readingFromStates(_ minutes: [Int64]) -> StateReadPlan {
        guard let whole = self.wholeMinutes else { return self }
        let extra = Set(minutes.filter { whole.contains($0) }).subtracting(self.splitMinutes)
        guard !extra.isEmpty else { return self }
        var plan = self
        plan.splitMinutes = (self.splitMinutes + extra).sorted()
        let ranges = self.stateRanges + extra.map { StateRollup.timestamps(ofMinute: $0) }
        plan.stateRanges = StateGrouping.joined(ranges.sorted { $0.lowerBound < $1.lowerBound })
        return plan
    }
}

extension StateGrouping {
    /// What to read for this grouping: a range that starts on a minute and whose groups are whole minutes
    /// reads rollups only.
    public var plan: StateReadPlan {
        let minute = StateRollup.minuteLength
        let fromOffset = StateRollup.offset(of: self.from)
        let toOffset = StateRollup.offset(of: self.to)
        let first = StateRollup.minute(of: self.from) + (fromOffset == 0 ? 0 : 1)
        let last = StateRollup.minute(of: self.to) - (toOffset == minute - 1 ? 0 : 1)
        guard first <= last else {
            return StateReadPlan(wholeMinutes: nil, lead: 0, splitMinutes: [], stateRanges: [self.from...self.to])
        }
        // No sum below goes past `from` or `to`: the whole minutes lie between them.
        let lead = fromOffset == 0 ? 0 : minute - fromOffset
        var split: [Int64] = []
        var ranges: [ClosedRange<Int64>] = []
        if lead > 0 { ranges.append(self.from...(self.from + lead - 1)) }
        for index in 1..<max(1, self.count) {
            let boundary = self.range(index).from
            let offset = StateRollup.offset(of: boundary)
            let boundaryMinute = StateRollup.minute(of: boundary)
            guard offset != 0, boundaryMinute >= first, boundaryMinute <= last, split.last != boundaryMinute else { continue }
            split.append(boundaryMinute)
            let start = boundary - offset
            ranges.append(start...(start + minute - 1))
        }
        if toOffset != minute - 1 { ranges.append((self.to - toOffset)...self.to) }
        return StateReadPlan(wholeMinutes: first...last, lead: lead, splitMinutes: split, stateRanges: Self.joined(ranges))
    }

    /// Ranges in order with adjacent ones joined.
    static func joined(_ ranges: [ClosedRange<Int64>]) -> [ClosedRange<Int64>] {
        var joined: [ClosedRange<Int64>] = []
        for range in ranges {
            if let previous = joined.last, previous.upperBound < Int64.max, previous.upperBound + 1 >= range.lowerBound {
                joined[joined.count - 1] = previous.lowerBound...max(previous.upperBound, range.upperBound)
            } else {
                joined.append(range)
            }
        }
        return joined
    }
}
