import Foundation
import GuildHarness

/// The shared daemon's resident memory: VmRSS right after start with no load, and VmHWM (peak) after the
/// other benchmarks ran against it. Keep it last in ``GuildBench/benchmarks``.
struct Memory: Benchmark {
    let name = "memory"
    let summary = "shared guildd VmRSS right after start, VmHWM after the other benchmarks"

    func run(_ context: BenchContext) async throws -> [Measurement] {
        let daemon = try await context.sharedDaemon()
        guard let idle = await context.sharedIdleMemory() else { throw DaemonError("no idle memory figure was taken") }
        let now = try daemon.memory()
        context.progress(
            "  idle VmRSS \(MeasurementUnit.mebibytes.format(idle.rssMiB)); now VmRSS \(MeasurementUnit.mebibytes.format(now.rssMiB)), "
                + "VmHWM \(MeasurementUnit.mebibytes.format(now.hwmMiB))"
        )
        return [
            Measurement(
                benchmark: self.name,
                figure: "idle RSS (VmRSS)",
                value: idle.rssMiB,
                unit: .mebibytes,
                // Issue 16: under 20 MB (19.07 MiB).
                target: .value(.below, 19),
                note: "250 ms after ready, no load (guildd releases its start-up code's mappings 100 ms after start)"
            ),
            Measurement(
                benchmark: self.name,
                figure: "peak RSS (VmHWM)",
                value: now.hwmMiB,
                unit: .mebibytes,
                target: nil,
                note: "after the benchmarks above; VmRSS now \(MeasurementUnit.mebibytes.format(now.rssMiB))"
            ),
        ]
    }
}
