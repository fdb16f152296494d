/// Order statistics over samples.
enum Stats {
    /// The median (mean of the two middle values for an even count). Empty input gives NaN.
    static func median(_ values: [Double]) -> Double {
        Self.percentile(values, 50)
    }

    /// The `p`-th percentile (0...100), linearly interpolated between closest ranks. Empty input gives NaN.
    static func percentile(_ values: [Double], _ p: Double) -> Double {
        Self.percentile(sorted: values.sorted(), p)
    }

    /// Like ``percentile(_:_:)`` for already sorted values (sort once, ask several percentiles).
    static func percentile(sorted: [Double], _ p: Double) -> Double {
        guard !sorted.isEmpty else { return .nan }
        let rank = min(max(p, 0), 100) / 100 * Double(sorted.count - 1)
        let lower = Int(rank.rounded(.down))
        let upper = min(lower + 1, sorted.count - 1)
        let fraction = rank - Double(lower)
        return sorted[lower] + (sorted[upper] - sorted[lower]) * fraction
    }

    static func mean(_ values: [Double]) -> Double {
        values.isEmpty ? .nan : values.reduce(0, +) / Double(values.count)
    }
}
