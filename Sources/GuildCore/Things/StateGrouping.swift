/// A state history's time range split into intervals (Thing-IF's `grouped` query): `[from, from + interval)`,
/// `[from + interval, from + 2 * interval)`, ..., the last one ending at `to` (included).
public struct StateGrouping: Sendable, Hashable {
    public var from: Int64
    public var to: Int64
    public var interval: Int64

    /// The most groups one query may have.
    public static let maximumGroups = 1_000
    /// Intervals chosen when none is given: the shortest that splits the range into at most ``defaultGroups``.
    public static let steps: [Int64] = [
        60_000, 300_000, 900_000, 1_800_000, 3_600_000, 10_800_000, 21_600_000, 43_200_000, 86_400_000, 604_800_000, 2_592_000_000,
    ]
    public static let defaultGroups: Int64 = 60

    /// A grouping of `[from, to]` by `interval` ms (nil: a step from ``steps`` giving at most ``defaultGroups``
    /// groups). A range or interval that would make more than ``maximumGroups`` groups is `invalidInput`.
    public init(from: Int64?, to: Int64?, interval: Int64?) throws(GuildError) {
        guard let from, let to else { throw .invalidInput("a grouped query needs from and to", field: from == nil ? "from" : "to") }
        guard from <= to else { throw .invalidInput("from is after to", field: "from") }
        let span = to.subtractingReportingOverflow(from)
        guard !span.overflow else { throw .invalidInput("the range is too long", field: "to") }
        let length = span.partialValue + 1
        let chosen: Int64
        if let interval {
            guard interval > 0 else { throw .invalidInput("interval is a positive number of ms", field: "interval") }
            chosen = interval
        } else {
            chosen = Self.steps.first { (length + $0 - 1) / $0 <= Self.defaultGroups } ?? Self.steps[Self.steps.count - 1]
        }
        let groups = (length - 1) / chosen + 1
        guard groups <= Self.maximumGroups else {
            throw .invalidInput("the range makes \(groups) groups of \(chosen) ms; at most \(Self.maximumGroups)", field: "interval")
        }
        self.from = from
        self.to = to
        self.interval = chosen
    }

    /// How many groups there are.
    public var count: Int { Int((self.to - self.from) / self.interval + 1) }

    /// Group `index`'s range: `from` included, `to` excluded but for the last group, which includes ``to``.
    public func range(_ index: Int) -> (from: Int64, to: Int64) {
        let start = self.from + Int64(index) * self.interval
        return (start, Swift.min(start + self.interval - 1, self.to))
    }

    /// The group a timestamp falls in; nil outside the range.
    public func group(of timestamp: Int64) -> Int? {
        guard timestamp >= self.from, timestamp <= self.to else { return nil }
        return Int((timestamp - self.from) / self.interval)
    }
}
