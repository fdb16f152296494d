import Foundation
import GuildJSON
import GuildProtocol

/// A grouped state history for people: one row per group (its start and end, then one column per
/// aggregation), and one sparkline per aggregation.
struct HistoryTable {
    let groups: [ThingMethods.StateGroup]
    let aggregations: [ThingMethods.StateAggregationSpec]
    /// The groups' length in ms: how precisely their times are shown.
    let interval: Int64
    /// Where the times are shown.
    var timeZone = TimeZone.current

    /// Each aggregation's column heading: `STATES` for the states' count, else its type and field.
    var headings: [String] {
        self.aggregations.map { aggregation -> String in
            if aggregation.putAggregationInto == ThingCommand.History.statesColumn { return "STATES" }
            return ([aggregation.type] + (aggregation.field.map { [$0] } ?? [])).joined(separator: " ").uppercased()
        }
    }

    /// The values of each aggregation, group by group (nil where a group has none).
    var columns: [[JSONValue?]] {
        self.aggregations.indices.map { index in
            self.groups.map { group -> JSONValue? in
                guard let values = group.aggregations, index < values.count else { return nil }
                return values[index].value == .null ? nil : values[index].value
            }
        }
    }

    /// The table's lines.
    func lines() -> [String] {
        let columns = self.columns
        let formatter = self.timeFormatter()
        let time = { (milliseconds: Int64) in formatter.string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000)) }
        let rows = self.groups.indices.map { row in
            [time(self.groups[row].range.from), time(self.groups[row].range.to)]
                + columns.map { column in column[row].map(Self.number) ?? "-" }
        }
        return Output.table(headers: ["FROM", "TO"] + self.headings, rows: rows)
    }

    /// One line per aggregation: its heading, its sparkline and the range of its values.
    func sparklines(width: Int) -> [String] {
        let headings = self.headings
        let labelWidth = headings.map(\.count).max() ?? 0
        return zip(headings, self.columns).map { heading, column in
            let numbers = column.map { value in value.flatMap(Self.double) }
            let present = numbers.compactMap { $0 }
            let span = present.isEmpty ? "" : "  " + Self.number(.double(present.min() ?? 0)) + " … " + Self.number(.double(present.max() ?? 0))
            let room = max(8, width - labelWidth - 2 - span.count)
            return Output.padded(heading, labelWidth) + "  " + Sparkline.line(numbers, width: room) + span
        }
    }

    /// Times as `yyyy-MM-dd HH:mm`, with seconds (and ms) when the interval needs them; made once per table, not
    /// per cell (a `DateFormatter` costs far more to make than to use).
    func timeFormatter() -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = self.timeZone
        formatter.dateFormat =
            self.interval % 1_000 != 0 ? "yyyy-MM-dd HH:mm:ss.SSS" : self.interval % 60_000 != 0 ? "yyyy-MM-dd HH:mm:ss" : "yyyy-MM-dd HH:mm"
        return formatter
    }

    /// A value as a number: integers whole, others with at most 3 decimals.
    static func number(_ value: JSONValue) -> String {
        switch value {
        case .int(let integer): return String(integer)
        case .double(let double):
            var text = String(format: "%.3f", double)
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
            return text == "-0" ? "0" : text
        case .null: return "-"
        default: return (try? Output.compact(value)) ?? "?"
        }
    }

    /// A numeric value as a `Double`.
    static func double(_ value: JSONValue) -> Double? {
        switch value {
        case .int(let integer): Double(integer)
        case .double(let double): double
        default: nil
        }
    }
}
