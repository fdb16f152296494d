import Foundation
import Testing

@testable import GuildCore

/// Five-field cron schedules: parsing, the next due time, time zones and their clock changes.
struct CronScheduleTests {
    /// ms since the epoch of an ISO 8601 time with its offset.
    static func ms(_ text: String) -> Int64 {
        let date = ISO8601DateFormatter().date(from: text)!
        return Int64((date.timeIntervalSince1970 * 1000).rounded())
    }

    static let utc = TimeZone(identifier: "UTC")!
    static let berlin = TimeZone(identifier: "Europe/Berlin")!

    static func next(_ expression: String, after: String, in zone: TimeZone = Self.utc) throws -> Int64? {
        try CronSchedule(expression, timeZone: zone).nextFire(after: Self.ms(after))
    }

    @Test func aDailyTimeIsDueTodayUntilItPassesThenTomorrow() throws {
        #expect(try Self.next("0 7 * * *", after: "2026-11-29T06:59:00Z") == Self.ms("2026-11-29T07:00:00Z"))
        #expect(try Self.next("0 7 * * *", after: "2026-11-29T06:59:59Z") == Self.ms("2026-11-29T07:00:00Z"))
        // Strictly after: at the due time itself, the next one is tomorrow's.
        #expect(try Self.next("0 7 * * *", after: "2026-11-29T07:00:00Z") == Self.ms("2026-11-30T07:00:00Z"))
        #expect(try Self.next("0 7 * * *", after: "2026-12-31T08:00:00Z") == Self.ms("2027-01-01T07:00:00Z"))
    }

    @Test func stepsRangesListsAndNames() throws {
        #expect(try Self.next("*/15 * * * *", after: "2026-11-29T10:07:30Z") == Self.ms("2026-11-29T10:15:00Z"))
        #expect(try Self.next("5/20 * * * *", after: "2026-11-29T10:26:00Z") == Self.ms("2026-11-29T10:45:00Z"))
        #expect(try Self.next("0,30 9-10 * * *", after: "2026-11-29T10:30:00Z") == Self.ms("2026-11-30T09:00:00Z"))
        // 2026-11-27 is a Friday: the next weekday morning is Monday the 30th.
        #expect(try Self.next("0 9 * * MON-FRI", after: "2026-11-27T09:00:00Z") == Self.ms("2026-11-30T09:00:00Z"))
        #expect(try Self.next("0 9 * * mon-fri", after: "2026-11-27T09:00:00Z") == Self.ms("2026-11-30T09:00:00Z"))
        #expect(try Self.next("0 0 1 jan *", after: "2026-11-29T00:00:00Z") == Self.ms("2027-01-01T00:00:00Z"))
        // 7 is Sunday, as 0 is; 2026-11-29 is a Sunday.
        #expect(try Self.next("0 12 * * 7", after: "2026-11-28T13:00:00Z") == Self.ms("2026-11-29T12:00:00Z"))
        #expect(try Self.next("0 12 * * 0", after: "2026-11-28T13:00:00Z") == Self.ms("2026-11-29T12:00:00Z"))
    }

    @Test func aRestrictedDayOfMonthAndDayOfWeekMatchEitherAsInVixieCron() throws {
        // The 1st of a month or a Monday: Monday the 30th comes first, then Tuesday the 1st.
        #expect(try Self.next("0 0 1 * MON", after: "2026-11-29T12:00:00Z") == Self.ms("2026-11-30T00:00:00Z"))
        #expect(try Self.next("0 0 1 * MON", after: "2026-11-30T00:00:00Z") == Self.ms("2026-12-01T00:00:00Z"))
        // With `*` in the day of month, only the day of week counts.
        #expect(try Self.next("0 0 * * TUE", after: "2026-11-29T12:00:00Z") == Self.ms("2026-12-01T00:00:00Z"))
    }

    @Test func aLeapDayIsFoundYearsAhead() throws {
        #expect(try Self.next("0 0 29 2 *", after: "2026-01-01T00:00:00Z") == Self.ms("2028-02-29T00:00:00Z"))
        // 2100 is not a leap year: from 2096's, the next is 2104's.
        #expect(try Self.next("0 0 29 2 *", after: "2096-03-01T00:00:00Z") == Self.ms("2104-02-29T00:00:00Z"))
    }

    @Test(arguments: [
        "", "* * * *", "* * * * * *", "60 * * * *", "* 24 * * *", "* * 0 * *", "* * 32 * *", "* * * 13 *", "* * * * 8",
        "*/0 * * * *", "5-1 * * * *", "a * * * *", "1,,2 * * * *", "-1 * * * *", "+1 * * * *", "* * * FOO *", "1/2/3 * * * *",
        "0 0 30 2 *", "0 0 31 4,6,9,11 *",
    ])
    func anInvalidOrImpossibleScheduleIsRefused(expression: String) {
        #expect(throws: GuildError.invalidInput("", field: "schedule")) {
            try CronSchedule(expression, timeZone: Self.utc)
        }
    }

    @Test func anImpossibleDayOfMonthStillFiresOnItsDayOfWeek() throws {
        // 30 February or a Friday: the Fridays of February.
        #expect(try Self.next("0 0 30 2 FRI", after: "2026-11-29T00:00:00Z") == Self.ms("2027-02-05T00:00:00Z"))
    }

    @Test func localTimesAreInTheScheduleTimeZone() throws {
        // 07:00 in Berlin in winter (UTC+1) is 06:00 UTC.
        #expect(try Self.next("0 7 * * *", after: "2026-11-29T00:00:00Z", in: Self.berlin) == Self.ms("2026-11-29T06:00:00Z"))
        // In summer (UTC+2), 05:00 UTC.
        #expect(try Self.next("0 7 * * *", after: "2026-07-01T00:00:00Z", in: Self.berlin) == Self.ms("2026-07-01T05:00:00Z"))
    }

    @Test func aLocalTimeSkippedWhenSummerTimeStartsDoesNotFireThatDay() throws {
        // Berlin, 2026-03-29: 02:00 becomes 03:00, so 02:30 does not exist; the next 02:30 is on the 30th (UTC+2).
        #expect(try Self.next("30 2 * * *", after: "2026-03-28T12:00:00Z", in: Self.berlin) == Self.ms("2026-03-30T00:30:00Z"))
    }

    @Test func aLocalTimeThatOccursTwiceWhenSummerTimeEndsFiresOnce() throws {
        // Berlin, 2026-10-25: 03:00 becomes 02:00, so 02:30 occurs at 00:30 UTC and again at 01:30 UTC.
        let first = try Self.next("30 2 * * *", after: "2026-10-24T12:00:00Z", in: Self.berlin)
        #expect(first == Self.ms("2026-10-25T00:30:00Z"))
        let second = try CronSchedule("30 2 * * *", timeZone: Self.berlin).nextFire(after: first ?? 0)
        #expect(second == Self.ms("2026-10-26T01:30:00Z"))
    }

    @Test func everyMinuteIsTheNextWholeMinute() throws {
        #expect(try Self.next("* * * * *", after: "2026-11-29T10:07:30Z") == Self.ms("2026-11-29T10:08:00Z"))
        #expect(try Self.next("* * * * *", after: "2026-11-29T10:07:00Z") == Self.ms("2026-11-29T10:08:00Z"))
    }

    @Test func weekdaysFollowTheGregorianCalendar() {
        #expect(CronSchedule.weekday(year: 2026, month: 11, day: 29) == 0)
        #expect(CronSchedule.weekday(year: 2000, month: 1, day: 1) == 6)
        #expect(CronSchedule.weekday(year: 2028, month: 2, day: 29) == 2)
        #expect(CronSchedule.daysIn(month: 2, year: 2100) == 28)
        #expect(CronSchedule.daysIn(month: 2, year: 2000) == 29)
    }
}
