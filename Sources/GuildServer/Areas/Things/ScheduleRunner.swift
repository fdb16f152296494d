import GuildCore
import Logging

/// Fires triggers' schedules: sleeps until the earliest due time (at most a minute, or until a schedule is
/// created or changed), then fires what is due in batches. It runs beside the server's connections for as long as
/// the server does; the due times are in the database, so a restart loses nothing (``ScheduleCatchUp``).
struct ScheduleRunner: Sendable {
    let things: ThingService
    let wake: ScheduleWake
    let logger: Logger

    /// The most schedules fired in one write transaction; a full batch is followed by the next at once.
    static let batch = 500
    /// The longest sleep, in ms: a bound on the cost of a missed wake, never the way a due time is found.
    static let longestSleep: Int64 = 60_000

    func run() async {
        while !Task.isCancelled {
            var delay = Self.longestSleep
            do {
                let (handled, nextDue, skipped) = try await self.things.fireDueSchedules(limit: Self.batch)
                if handled > 0 { self.logger.debug("fired schedules", metadata: ["count": "\(handled)"]) }
                for skip in skipped { TriggerMetrics.skipped(skip) }
                if handled == Self.batch { continue }
                if let nextDue { delay = min(delay, max(0, nextDue - self.things.now())) }
                // Something due that this host could not fire (another host took it): look again shortly, not in a spin.
                if handled == 0, delay == 0 { delay = 10 }
            } catch {
                self.logger.warning("firing schedules failed", metadata: ["error": "\(error)"])
                delay = 1_000
            }
            if delay > 0 { await self.wake.wait(upTo: .milliseconds(delay)) }
        }
    }
}
