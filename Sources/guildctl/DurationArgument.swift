import ArgumentParser

/// A length of time given on the command line: a number with a unit (`500ms`, `30s`, `15m`, `1h`, `1d`, `1w`),
/// or a bare number of ms.
enum DurationArgument {
    /// The units, in ms.
    static let units: [(suffix: String, milliseconds: Int64)] = [
        ("ms", 1), ("s", 1_000), ("m", 60_000), ("h", 3_600_000), ("d", 86_400_000), ("w", 604_800_000),
    ]

    /// `text` in ms; a `ValidationError` naming `option` unless it is a positive length.
    static func milliseconds(_ text: String, option: String) throws -> Int64 {
        let trimmed = text.lowercased()
        // "ms" before "m" and "s": the longest suffix that leaves a number.
        for unit in Self.units.sorted(by: { $0.suffix.count > $1.suffix.count }) where trimmed.hasSuffix(unit.suffix) {
            guard let amount = Int64(trimmed.dropLast(unit.suffix.count)), amount > 0 else { continue }
            let (total, overflow) = amount.multipliedReportingOverflow(by: unit.milliseconds)
            guard !overflow else { break }
            return total
        }
        if let amount = Int64(trimmed), amount > 0 { return amount }
        throw ValidationError("\(option) is a positive length such as 500ms, 30s, 15m, 1h, 1d or 1w (or ms): \(text)")
    }
}
