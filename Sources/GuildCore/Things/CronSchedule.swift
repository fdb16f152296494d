import Foundation

/// A five-field cron schedule in a time zone: Thing-IF's `SCHEDULE` predicate (data-things-messages.md §4.5).
///
/// The fields are minute (0-59), hour (0-23), day of month (1-31), month (1-12 or `JAN`-`DEC`) and day of week
/// (0-7, 0 and 7 both Sunday, or `SUN`-`SAT`), each `*`, a value, a range `a-b`, any of these with a step
/// (`*/15`, `1-30/2`, `5/20`, which means `5-59/20`), or a comma-separated list of them. As in Vixie cron, when
/// both the day of month and the day of week are restricted (neither starts with `*`), a day matches when either
/// does.
///
/// Times are local to ``timeZone``: a local time that does not exist on a day (the hour skipped when daylight
/// saving time starts) does not fire that day, and one that occurs twice (when it ends) fires once, at its first
/// occurrence.
public struct CronSchedule: Sendable, Hashable {
    /// The expression as given.
    public let expression: String
    /// The time zone its local times are in.
    public let timeZone: TimeZone
    /// The zone's name as given, which is what the schedule states: Foundation on Linux names `UTC` `GMT`.
    public let timeZoneName: String

    private let minutes: [Int]
    private let hours: [Int]
    private let daysOfMonth: UInt64
    private let months: UInt64
    private let daysOfWeek: UInt64
    private let dayOfMonthRestricted: Bool
    private let dayOfWeekRestricted: Bool

    /// The longest expression accepted.
    public static let maximumLength = 200

    /// How far ahead ``nextFire(after:)`` looks: nine years cover the longest gap between two days a valid
    /// expression can name (29 February across a century that is not a leap year: 2096 to 2104).
    static let horizonDays = 9 * 366

    /// Parses `expression`; an invalid one, or one that can never fire (`0 0 30 2 *`), is `invalidInput` naming
    /// `field`. `timeZoneName` is the name `timeZone` was found by (its identifier when nil).
    public init(_ expression: String, timeZone: TimeZone, timeZoneName: String? = nil, field: String = "schedule") throws(GuildError) {
        guard expression.utf8.count <= Self.maximumLength else {
            throw .invalidInput("a schedule is at most \(Self.maximumLength) bytes", field: field)
        }
        let fields = expression.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        guard fields.count == 5 else {
            throw .invalidInput(
                "a schedule has five fields: minute hour day-of-month month day-of-week (\"\(expression)\" has \(fields.count))",
                field: field
            )
        }
        func parse(_ index: Int, _ name: String, _ range: ClosedRange<Int>, _ names: [String] = []) throws(GuildError) -> UInt64 {
            guard let bits = Self.parseField(fields[index], range: range, names: names) else {
                throw .invalidInput(
                    "the schedule's \(name) field \"\(fields[index])\" is not valid (\(range.lowerBound)-\(range.upperBound))",
                    field: field
                )
            }
            return bits
        }
        let minuteBits = try parse(0, "minute", 0...59)
        let hourBits = try parse(1, "hour", 0...23)
        let dayBits = try parse(2, "day-of-month", 1...31)
        let monthBits = try parse(3, "month", 1...12, Self.monthNames)
        var weekdayBits = try parse(4, "day-of-week", 0...7, Self.weekdayNames)
        // 7 is Sunday too.
        if weekdayBits & (1 << 7) != 0 { weekdayBits = (weekdayBits | 1) & ~(1 << 7) }

        self.expression = expression
        self.timeZone = timeZone
        self.timeZoneName = timeZoneName ?? timeZone.identifier
        self.minutes = (0...59).filter { minuteBits & (1 << $0) != 0 }
        self.hours = (0...23).filter { hourBits & (1 << $0) != 0 }
        self.daysOfMonth = dayBits
        self.months = monthBits
        self.daysOfWeek = weekdayBits
        self.dayOfMonthRestricted = !fields[2].hasPrefix("*")
        self.dayOfWeekRestricted = !fields[4].hasPrefix("*")

        // A day of month that no chosen month has (30 February) never fires when the day of week cannot help.
        if !self.dayOfWeekRestricted || !self.dayOfMonthRestricted {
            let reachable = (1...12).contains { month in
                monthBits & (1 << month) != 0 && (1...Self.longestMonth[month]).contains { dayBits & (1 << $0) != 0 }
            }
            guard reachable else { throw .invalidInput("the schedule \"\(expression)\" names no day that exists", field: field) }
        }
    }

    /// The first time the schedule fires strictly after `instant` (ms since the Unix epoch), at a whole minute;
    /// nil when there is none within nine years.
    public func nextFire(after instant: Int64) -> Int64? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = self.timeZone
        let start = Date(timeIntervalSince1970: Double(instant) / 1000)
        let local = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: start)
        guard var year = local.year, var month = local.month, var day = local.day, let hour = local.hour, let minute = local.minute else {
            return nil
        }
        var firstDay = true
        for _ in 0..<Self.horizonDays {
            if self.matches(year: year, month: month, day: day) {
                for candidateHour in self.hours where !firstDay || candidateHour >= hour {
                    for candidateMinute in self.minutes where !(firstDay && candidateHour == hour && candidateMinute < minute) {
                        let components = DateComponents(year: year, month: month, day: day, hour: candidateHour, minute: candidateMinute)
                        guard let date = calendar.date(from: components) else { continue }
                        // A local time that does not exist that day comes back moved by the clock change: skipped.
                        let back = calendar.dateComponents([.day, .hour, .minute], from: date)
                        guard back.day == day, back.hour == candidateHour, back.minute == candidateMinute else { continue }
                        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded())
                        if milliseconds > instant { return milliseconds }
                    }
                }
            }
            firstDay = false
            day += 1
            if day > Self.daysIn(month: month, year: year) {
                day = 1
                month += 1
                if month > 12 {
                    month = 1
                    year += 1
                }
            }
        }
        return nil
    }

    /// Whether a local day fires at all.
    func matches(year: Int, month: Int, day: Int) -> Bool {
        guard self.months & (1 << month) != 0 else { return false }
        let byDay = self.daysOfMonth & (1 << day) != 0
        let byWeekday = self.daysOfWeek & (1 << Self.weekday(year: year, month: month, day: day)) != 0
        if self.dayOfMonthRestricted && self.dayOfWeekRestricted { return byDay || byWeekday }
        return byDay && byWeekday
    }

    // MARK: - Calendar arithmetic (proleptic Gregorian)

    private static let longestMonth = [0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
    private static let monthNames = ["", "JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"]
    private static let weekdayNames = ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"]

    static func daysIn(month: Int, year: Int) -> Int {
        if month == 2 { return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28 }
        return Self.longestMonth[month]
    }

    /// 0 (Sunday) to 6 (Saturday), by Sakamoto's method.
    static func weekday(year: Int, month: Int, day: Int) -> Int {
        let offsets = [0, 3, 2, 5, 0, 3, 5, 1, 4, 6, 2, 4]
        let y = month < 3 ? year - 1 : year
        return (y + y / 4 - y / 100 + y / 400 + offsets[month - 1] + day) % 7
    }

    // MARK: - Parsing

    /// A field's values as bits (bit n: value n), or nil when it is not valid.
    static func parseField(_ field: String, range: ClosedRange<Int>, names: [String]) -> UInt64? {
        var bits: UInt64 = 0
        for item in field.split(separator: ",", omittingEmptySubsequences: false) {
            let parts = item.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count <= 2, let base = parts.first, !base.isEmpty else { return nil }
            var step = 1
            if parts.count == 2 {
                guard let value = Int(parts[1]), value >= 1, value <= range.upperBound + 1 else { return nil }
                step = value
            }
            var low: Int
            var high: Int
            if base == "*" {
                low = range.lowerBound
                high = range.upperBound
            } else if let dash = base.firstIndex(of: "-") {
                guard let from = Self.value(base[..<dash], names: names), let to = Self.value(base[base.index(after: dash)...], names: names) else {
                    return nil
                }
                low = from
                high = to
            } else {
                guard let value = Self.value(base, names: names) else { return nil }
                low = value
                // `5/20` is `5-max/20`.
                high = parts.count == 2 ? range.upperBound : value
            }
            guard range.contains(low), range.contains(high), low <= high else { return nil }
            for value in stride(from: low, through: high, by: step) { bits |= 1 << value }
        }
        return bits == 0 ? nil : bits
    }

    private static func value(_ text: Substring, names: [String]) -> Int? {
        if let number = Int(text), text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) { return number }
        let upper = text.uppercased()
        return names.firstIndex(where: { !$0.isEmpty && $0 == upper })
    }
}
