import Foundation
import Glibc

/// CPU time (user + system) a process has used, from `/proc/PID/stat`; pid nil means this process.
func cpuSeconds(pid: Int32?) -> Double? {
    let path = pid.map { "/proc/\($0)/stat" } ?? "/proc/self/stat"
    guard let text = try? String(contentsOfFile: path, encoding: .utf8),
        let close = text.lastIndex(of: ")")
    else { return nil }
    // Fields after "(comm)": state is field 3; utime and stime are fields 14 and 15.
    let fields = text[text.index(after: close)...].split(separator: " ")
    guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
    return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
}

/// Measures how many CPU cores the daemon (or daemons) and the bench used during some work.
struct CPUMeter {
    let daemonPIDs: [Int32]
    private let start = monotonicNanos()
    private let daemonStarts: [Double?]
    private let selfStart: Double?

    init(daemonPID: Int32) {
        self.init(daemonPIDs: [daemonPID])
    }

    init(daemonPIDs: [Int32]) {
        self.daemonPIDs = daemonPIDs
        self.daemonStarts = daemonPIDs.map { cpuSeconds(pid: $0) }
        self.selfStart = cpuSeconds(pid: nil)
    }

    /// The cores the bench process itself (its clients) used since init.
    func benchCores() -> Double {
        let wall = Double(monotonicNanos() - self.start) / 1e9
        guard let start = self.selfStart, let end = cpuSeconds(pid: nil), wall > 0 else { return .nan }
        return (end - start) / wall
    }

    /// "guildd 0.95 cores, bench 1.02 cores" since init; with several daemons "guildd 0.61 + 0.40 cores".
    func summary() -> String {
        let wall = Double(monotonicNanos() - self.start) / 1e9
        func cores(_ start: Double?, _ end: Double?) -> String {
            guard let start, let end, wall > 0 else { return "?" }
            return Format.decimal((end - start) / wall, digits: 2)
        }
        let daemons = zip(self.daemonPIDs, self.daemonStarts).map { pid, start in cores(start, cpuSeconds(pid: pid)) }
        return "CPU: guildd \(daemons.joined(separator: " + ")) cores, "
            + "bench \(cores(self.selfStart, cpuSeconds(pid: nil))) cores"
    }
}
