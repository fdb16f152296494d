import Foundation
import GuildHarness

/// One benchmark: a name (used by `--only` and in the table) and a run producing measurements.
///
/// To add one: write a type conforming to this protocol in `Benchmarks/`, then list it in
/// ``GuildBench/benchmarks``. Use ``BenchContext/sharedDaemon()`` to measure against the daemon that the
/// memory figures are taken from, or start your own ``Daemon`` (it is stopped at exit either way).
protocol Benchmark: Sendable {
    /// Short kebab-case name, e.g. `ping-latency`.
    var name: String { get }
    /// What it measures, for `--help` and the progress output.
    var summary: String { get }
    /// Runs the benchmark; thrown errors are reported in the table and make the exit status non-zero.
    func run(_ context: BenchContext) async throws -> [Measurement]
}

/// The unit a figure is measured in; decides how it is printed.
enum MeasurementUnit: String, Codable, Sendable {
    case microseconds = "µs"
    case milliseconds = "ms"
    case perSecond = "/s"
    case mebibytes = "MiB"
    case cores

    func format(_ value: Double) -> String {
        guard value.isFinite else { return "—" }
        switch self {
        case .microseconds: return Format.decimal(value, digits: 1) + " µs"
        case .milliseconds: return Format.decimal(value, digits: 1) + " ms"
        case .perSecond: return Format.grouped(value) + "/s"
        case .mebibytes: return Format.decimal(value, digits: 1) + " MiB"
        case .cores: return Format.decimal(value, digits: 2) + " cores"
        }
    }
}

/// A pass/fail condition on a measurement's value or on its ratio to the baseline.
struct Target: Codable, Sendable {
    enum Subject: String, Codable, Sendable { case value, ratio }
    enum Comparison: String, Codable, Sendable {
        case below = "<"
        case atMost = "≤"
        case atLeast = "≥"
    }

    var subject: Subject
    var comparison: Comparison
    var bound: Double

    static func value(_ comparison: Comparison, _ bound: Double) -> Target {
        Target(subject: .value, comparison: comparison, bound: bound)
    }

    static func ratio(_ comparison: Comparison, _ bound: Double) -> Target {
        Target(subject: .ratio, comparison: comparison, bound: bound)
    }

    func check(value: Double, ratio: Double?) -> Bool {
        let subject: Double
        switch self.subject {
        case .value: subject = value
        case .ratio:
            guard let ratio else { return false }
            subject = ratio
        }
        guard subject.isFinite else { return false }
        switch self.comparison {
        case .below: return subject < self.bound
        case .atMost: return subject <= self.bound
        case .atLeast: return subject >= self.bound
        }
    }

    func describe(unit: MeasurementUnit) -> String {
        switch self.subject {
        case .value: return "\(self.comparison.rawValue) \(unit.format(self.bound))"
        case .ratio: return "ratio \(self.comparison.rawValue) \(Format.decimal(self.bound, digits: self.bound.rounded() == self.bound ? 0 : 2))x"
        }
    }
}

/// One figure of a benchmark, with its optional baseline (measured in the same run) and target.
struct Measurement: Sendable {
    var benchmark: String
    var figure: String
    var value: Double
    var unit: MeasurementUnit
    /// The baseline in the same unit, and what it is.
    var baseline: Double?
    var baselineName: String?
    var target: Target?
    /// Extra detail for the table (spread of runs, counts).
    var note: String?

    /// value / baseline.
    var ratio: Double? {
        guard let baseline, baseline != 0 else { return nil }
        return self.value / baseline
    }

    /// nil when there is no target.
    var passed: Bool? {
        self.target?.check(value: self.value, ratio: self.ratio)
    }
}

/// What every benchmark gets: settings, the work directory and the shared daemon.
final class BenchContext: Sendable {
    let guilddPath: String
    let workDir: String
    /// Seconds per throughput measurement.
    let duration: Double
    /// Repetitions a median is taken over.
    let runs: Int
    /// Smaller counts for a smoke run.
    let quick: Bool
    /// The fan-out's sustained phase at this many notifications per second instead of half the measured burst
    /// rate: one load for two binaries compared.
    let sustainedRate: Double?
    /// The states of the history benchmark's thing instead of its default (1,000,000; 100,000 with `quick`).
    let historyStates: Int?
    private let shared: SharedDaemon

    init(
        guilddPath: String,
        workDir: String,
        duration: Double,
        runs: Int,
        quick: Bool,
        sustainedRate: Double? = nil,
        historyStates: Int? = nil
    ) {
        self.guilddPath = guilddPath
        self.workDir = workDir
        self.duration = duration
        self.runs = runs
        self.quick = quick
        self.sustainedRate = sustainedRate
        self.historyStates = historyStates
        self.shared = SharedDaemon()
    }

    /// A path inside the work directory.
    func path(_ name: String) -> String {
        self.workDir + "/" + name
    }

    /// A progress line on stderr.
    func progress(_ message: String) {
        Log.progress(message)
    }

    /// The daemon shared by the benchmarks that measure "the" daemon (and by the memory figures); started
    /// on first use with `--scrypt-log-n 4 --synchronous FULL`.
    func sharedDaemon() async throws -> Daemon {
        try await self.shared.get(self)
    }

    /// The shared daemon's memory right after it became ready, before any load; nil if it never started.
    func sharedIdleMemory() async -> MemoryStatus? {
        await self.shared.idleMemory
    }

    func stopSharedDaemon() async {
        await self.shared.stop()
    }
}

/// Lazily started shared daemon.
actor SharedDaemon {
    private var daemon: Daemon?
    private(set) var idleMemory: MemoryStatus?

    private var startError: (any Error)?

    func get(_ context: BenchContext) async throws -> Daemon {
        if let daemon = self.daemon { return daemon }
        if let startError = self.startError { throw DaemonError("the shared guildd failed to start: \(startError)") }
        do {
            return try await self.start(context)
        } catch {
            self.startError = error
            if let daemon = self.daemon {
                await daemon.stop()
                self.daemon = nil
            }
            throw error
        }
    }

    private func start(_ context: BenchContext) async throws -> Daemon {
        let socket = context.path("guildd.sock")
        context.progress("  starting shared guildd (\(context.guilddPath))")
        let daemon = try await Daemon.launch(
            name: "guildd",
            executable: context.guilddPath,
            arguments: [
                "--socket", socket,
                "--database", context.path("guild.db"),
                "--scrypt-log-n", "4",
                "--synchronous", "FULL",
            ],
            socketPath: socket,
            logPath: context.path("guildd.log")
        )
        self.daemon = daemon
        let started = monotonicNanos()
        try await daemon.waitUntilReady()
        context.progress("  guildd pid \(daemon.pid) ready after \(Format.decimal(Double(monotonicNanos() - started) / 1e6, digits: 1)) ms")
        // Let start-up work settle before taking the idle figure.
        try await Task.sleep(for: .milliseconds(250))
        self.idleMemory = try daemon.memory()
        return daemon
    }

    func stop() async {
        guard let daemon = self.daemon else { return }
        self.daemon = nil
        await daemon.stop()
    }
}

/// Progress output on stderr.
enum Log {
    static func progress(_ message: String) {
        // What is printed to standard output before goes out first: with both sent to one file, a report
        // still in stdout's buffer was cut by the progress line in the middle of a row.
        fflush(nil)
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }
}

/// Number formatting independent of the locale.
enum Format {
    static func decimal(_ value: Double, digits: Int) -> String {
        guard value.isFinite else { return "—" }
        return String(format: "%.\(digits)f", value)
    }

    /// An integer with thousands separators: 123,456.
    static func grouped(_ value: Double) -> String {
        guard value.isFinite else { return "—" }
        let rounded = Int(value.rounded())
        let digits = String(abs(rounded))
        var out = ""
        for (index, character) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { out.append(",") }
            out.append(character)
        }
        return (rounded < 0 ? "-" : "") + out
    }

    /// "min–max" of a set of samples in a unit, for notes.
    static func spread(_ values: [Double], unit: MeasurementUnit) -> String {
        guard let low = values.min(), let high = values.max() else { return "" }
        return "\(values.count) runs, \(unit.format(low)) – \(unit.format(high))"
    }
}
