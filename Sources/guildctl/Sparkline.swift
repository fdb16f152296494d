/// A row of block characters, one per value, scaled between the smallest and the largest value.
enum Sparkline {
    /// The bars, lowest first.
    static let bars: [Character] = ["▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"]

    /// One bar per value (a space for a missing one); all values equal give the lowest bar. More values than
    /// `width` are averaged in runs so that the line fits.
    static func line(_ values: [Double?], width: Int = .max) -> String {
        let values = Self.fitted(values, width: max(1, width))
        let present = values.compactMap { $0 }
        guard let low = present.min(), let high = present.max() else { return String(repeating: " ", count: values.count) }
        let top = Double(Self.bars.count - 1)
        return String(
            values.map { value -> Character in
                guard let value else { return " " }
                guard high > low else { return Self.bars[0] }
                let level = Int(((value - low) / (high - low) * top).rounded())
                return Self.bars[min(max(level, 0), Self.bars.count - 1)]
            }
        )
    }

    /// At most `width` values: runs of consecutive ones averaged (missing ones left out; a run of only missing
    /// ones stays missing).
    static func fitted(_ values: [Double?], width: Int) -> [Double?] {
        guard values.count > width else { return values }
        let run = (values.count + width - 1) / width
        return stride(from: 0, to: values.count, by: run).map { start -> Double? in
            let present = values[start..<min(start + run, values.count)].compactMap { $0 }
            return present.isEmpty ? nil : present.reduce(0, +) / Double(present.count)
        }
    }
}
