import Foundation
import Glibc

/// The machine's CPU time so far, from the first (`cpu `) line of `/proc/stat`, and one process's: what two
/// snapshots tell about the time between them (how busy the machine was, how much of it the hypervisor took,
/// how much a process used).
struct MachineCPU: Sendable {
    /// Clock ticks per state, all CPUs together.
    var busy: Double
    var idle: Double
    var iowait: Double
    var steal: Double
    /// The process's user + system CPU seconds, when one was named and still runs.
    var processSeconds: Double?
    /// When the snapshot was taken.
    var nanos: UInt64

    /// A snapshot now; nil when `/proc/stat` cannot be read. `pid`: the process whose CPU time to include.
    static func read(pid: Int32?) -> MachineCPU? {
        guard let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix("cpu ") })
        else { return nil }
        // user nice system idle iowait irq softirq steal (guest and guest_nice are inside user and nice).
        let ticks = line.split(separator: " ").dropFirst().compactMap { Double($0) }
        guard ticks.count >= 8 else { return nil }
        return MachineCPU(
            busy: ticks[0] + ticks[1] + ticks[2] + ticks[5] + ticks[6],
            idle: ticks[3],
            iowait: ticks[4],
            steal: ticks[7],
            processSeconds: pid.flatMap { cpuSeconds(pid: $0) },
            nanos: monotonicNanos()
        )
    }

    /// Shares of the machine's CPU time between `earlier` and this snapshot.
    func since(_ earlier: MachineCPU) -> Share {
        let total = (self.busy + self.idle + self.iowait + self.steal) - (earlier.busy + earlier.idle + earlier.iowait + earlier.steal)
        let wall = Double(self.nanos - earlier.nanos) / 1e9
        func share(_ now: Double, _ then: Double) -> Double { total > 0 ? (now - then) / total : .nan }
        let processCores: Double? =
            if let now = self.processSeconds, let then = earlier.processSeconds, wall > 0, now >= then {
                (now - then) / wall
            } else {
                nil
            }
        return Share(
            busy: share(self.busy, earlier.busy),
            iowait: share(self.iowait, earlier.iowait),
            steal: share(self.steal, earlier.steal),
            processCores: processCores
        )
    }

    /// What the machine's CPUs did between two snapshots.
    struct Share: Sendable {
        /// Fractions of all CPUs' time: running anything, idle waiting for I/O, taken by the hypervisor.
        var busy: Double
        var iowait: Double
        var steal: Double
        /// Cores the process used (1.0: one CPU's whole time).
        var processCores: Double?

        /// "71% busy, 0.9% steal, 2.1% iowait, guildd 0.83 cores".
        var summary: String {
            func percent(_ value: Double) -> String { "\(Format.decimal(value * 100, digits: 1))%" }
            return "\(percent(self.busy)) busy, \(percent(self.steal)) steal, \(percent(self.iowait)) iowait"
                + (self.processCores.map { ", guildd \(Format.decimal($0, digits: 2)) cores" } ?? "")
        }
    }
}
