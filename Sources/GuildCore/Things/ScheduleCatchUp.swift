/// What a schedule that came due while nothing ran it does once the daemon runs again.
///
/// A schedule's next due time is stored with the trigger and advanced in the transaction that fires it, so a
/// firing is committed with its advance or not at all: a daemon killed around the due time fires on its next
/// start what it had not committed, and never twice. What came due longer ago than the window does not fire: it
/// is recorded as missed (`trigger.results`), so "turn the lamp on at 7:00" does not run at 15:00 after a day
/// without power.
public struct ScheduleCatchUp: Sendable, Hashable {
    /// How late a due time may be found and still fire, in ms.
    public var windowMilliseconds: Int64

    /// Fifteen minutes.
    public static let standard = ScheduleCatchUp(windowMilliseconds: 15 * 60_000)

    public init(windowMilliseconds: Int64) {
        self.windowMilliseconds = windowMilliseconds
    }

    /// Whether a due time found at `now` fires (true) or is recorded as missed (false).
    public func fires(due: Int64, now: Int64) -> Bool {
        now - due <= self.windowMilliseconds
    }
}
