import ArgumentParser
import Foundation
import Glibc
import GuildHarness

/// `guild-bench churn`: connect, one `system.ping`, close, over and over, at 1, 8 and 64 concurrent clients, against
/// one guildd and, in the same run, against a floor that accepts the same way (`churn-echo`). A daemon that lives
/// for months must serve its millionth connection as it served its first: per 100,000-connection slice the run
/// reports connect-to-reply p50/p99, connections/s and guildd's VmRSS (and its anonymous part, RssAnon). Not part of
/// the benchmark run; exit status 1 when a target is missed or a connection fails.
///
/// guildd's first minute is left out (``settle``): its first retention pass, a minute after start, is the first
/// write transaction of a daemon that only answers pings, and pages in about 4 MiB of the executable's code (clean,
/// file-backed pages, once; an idle guildd shows the same step at the same moment), which is no cost of a
/// connection.
struct ChurnCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "churn",
        abstract: "Connection churn (connect, one call, close) for a million connections; checks the cost stays flat."
    )

    /// `--guildd`, `--work-dir` and `--keep` are the main command's options.
    @ParentCommand var bench: GuildBench

    @Option(help: "Connections at each concurrency level.")
    var connections: Int = 1_000_000

    @Option(help: "Concurrent clients, one level after another (comma-separated).")
    var concurrency: String = "1,8,64"

    @Option(help: "Connections per reported slice.")
    var slice: Int = 100_000

    @Option(help: "Connections to the floor at each level (default: the smaller of --connections and 200,000).")
    var echoConnections: Int?

    @Option(help: "Extra guildd arguments (repeatable).")
    var daemonArgument: [String] = []

    @Option(help: "Seconds from guildd's start to its first measured slice, so its first minute's one-time work is left out.")
    var settle: Int = 65

    /// The targets (the lifetime issue's): the last slice's p50 at most this times the first's ...
    static let flatLatency = 1.1
    /// ... guildd's VmRSS growing less than this from the end of the first slice to the end of the last ...
    static let rssGrowthBytes = 1 << 20
    /// ... and at 8 clients, at least this share of the floor's connections/s.
    static let floorShare = 1.0 / 3

    var levels: [Int] {
        self.concurrency.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
    }

    func validate() throws {
        guard self.connections >= 1 else { throw ValidationError("--connections must be at least 1") }
        guard self.slice >= 1 else { throw ValidationError("--slice must be at least 1") }
        guard self.settle >= 0 else { throw ValidationError("--settle must be at least 0") }
        guard !self.levels.isEmpty, self.levels.allSatisfy({ (1...1024).contains($0) }) else {
            throw ValidationError("--concurrency takes levels of 1-1024 clients, e.g. 1,8,64")
        }
    }

    func run() async throws {
        let context = try ModeOptions.makeContext(self.bench)
        let echoCount = self.echoConnections ?? min(self.connections, 200_000)
        let daemon = try await launchOwnDaemon(context, name: "churn", extraArguments: self.daemonArgument)
        let settled = ContinuousClock.now + .seconds(self.settle)
        let echo = try await ChurnEcho.launch(socket: context.path("echo.sock"), logPath: context.path("echo.log"))
        Log.progress(
            "churn: \(Format.grouped(Double(self.connections))) connections to guildd and \(Format.grouped(Double(echoCount))) "
                + "to the floor at each of \(self.levels.map(String.init).joined(separator: ", ")) clients"
        )
        var failures: [String] = []
        print("## guild-bench churn")
        print("")
        print(
            "guildd \(context.guilddPath); each connection: connect, one system.ping, read the reply, close; measured from "
                + "\(self.settle) s after guildd started."
        )
        for level in self.levels {
            Log.progress("▶ \(level) client(s): floor")
            let floor = await ChurnLoad(path: echo.socketPath, count: echoCount, concurrency: level, slice: self.slice, serverPID: nil).run()
            Log.progress("  floor \(Format.grouped(floor.rate))/s; guildd")
            if ContinuousClock.now < settled {
                Log.progress("  (waiting for guildd's first minute to pass: --settle \(self.settle))")
                try await Task.sleep(until: settled)
            }
            let cpu = CPUMeter(daemonPID: daemon.pid)
            let load = ChurnLoad(path: daemon.socketPath, count: self.connections, concurrency: level, slice: self.slice, serverPID: daemon.pid)
            let measured = await load.run()
            let cpuSummary = cpu.summary()
            try daemon.checkRunning()
            failures += Self.report(level: level, guildd: measured, floor: floor, cpu: cpuSummary)
        }
        let memory = try? daemon.memory()
        await echo.stop()
        await daemon.stop()
        reportDaemonLogProblems(daemon, context)
        print("")
        let mib = MeasurementUnit.mebibytes
        print(
            "guildd VmRSS at the end \(memory.map { mib.format($0.rssMiB) } ?? "—"), VmHWM \(memory.map { mib.format($0.hwmMiB) } ?? "—")"
        )
        if failures.isEmpty {
            print("- result: PASS")
        } else {
            print("- result: **FAIL**: " + failures.joined(separator: "; "))
            throw ExitCode(1)
        }
    }

    /// Prints one level's slices and targets; returns the targets it missed.
    private static func report(level: Int, guildd: ChurnLoad.Outcome, floor: ChurnLoad.Outcome, cpu: String) -> [String] {
        let microseconds = MeasurementUnit.microseconds
        print("")
        print("### \(level) concurrent client\(level == 1 ? "" : "s")")
        print("")
        print("| slice | connections | p50 | p99 | connections/s | guildd VmRSS | of which RssAnon |")
        print("|---|---|---|---|---|---|---|")
        let mebibytes = { (bytes: Int?) in bytes.map { MeasurementUnit.mebibytes.format(Double($0) / 1_048_576) } ?? "—" }
        for slice in guildd.slices {
            print(
                "| \(slice.index + 1) | \(Format.grouped(Double(slice.count))) | \(microseconds.format(slice.p50)) | "
                    + "\(microseconds.format(slice.p99)) | \(Format.grouped(slice.rate)) | \(mebibytes(slice.rssBytes)) | "
                    + "\(mebibytes(slice.anonymousBytes)) |"
            )
        }
        let floorP50 = Stats.median(floor.slices.map(\.p50))
        print(
            "| floor (churn-echo) | \(Format.grouped(Double(floor.slices.reduce(0) { $0 + $1.count }))) | "
                + "\(microseconds.format(floorP50)) | \(microseconds.format(Stats.median(floor.slices.map(\.p99)))) | "
                + "\(Format.grouped(floor.rate)) | — | — |"
        )
        print("")
        var missed: [String] = []
        if guildd.failures > 0 || floor.failures > 0 {
            missed.append(
                "\(level) clients: \(guildd.failures) guildd and \(floor.failures) floor connections failed "
                    + "(first: \(guildd.firstFailure ?? floor.firstFailure ?? "?"))"
            )
        }
        guard let first = guildd.slices.first, let last = guildd.slices.last else { return missed }
        let latencyRatio = last.p50 / first.p50
        let latencyMet = guildd.slices.count < 2 || latencyRatio <= Self.flatLatency
        print(
            "- last slice p50 / first: \(Format.decimal(latencyRatio, digits: 2))x (target ≤ \(Format.decimal(Self.flatLatency, digits: 1))x): "
                + (latencyMet ? "met" : "**not met**")
        )
        if !latencyMet { missed.append("\(level) clients: p50 grew \(Format.decimal(latencyRatio, digits: 2))x") }
        if let firstRSS = first.rssBytes, let lastRSS = last.rssBytes, guildd.slices.count > 1 {
            let growth = lastRSS - firstRSS
            let met = growth < Self.rssGrowthBytes
            print(
                "- VmRSS growth from slice 1 to slice \(guildd.slices.count): \(Format.decimal(Double(growth) / 1024, digits: 0)) KiB "
                    + "(target < 1,024 KiB): " + (met ? "met" : "**not met**")
            )
            if !met { missed.append("\(level) clients: VmRSS grew \(growth / 1024) KiB") }
            if let firstAnonymous = first.anonymousBytes, let lastAnonymous = last.anonymousBytes {
                print("  (RssAnon: \(Format.decimal(Double(lastAnonymous - firstAnonymous) / 1024, digits: 0)) KiB)")
            }
        }
        let share = guildd.rate / floor.rate
        let shareLine =
            "- connections/s: guildd \(Format.grouped(guildd.rate)) over \(Format.decimal(guildd.seconds, digits: 1)) s, "
            + "floor \(Format.grouped(floor.rate)): \(Format.decimal(share, digits: 2))x"
        if level == 8 {
            let met = share >= Self.floorShare
            print(shareLine + " (target ≥ 0.33x at 8 clients): " + (met ? "met" : "**not met**"))
            if !met { missed.append("8 clients: \(Format.decimal(share, digits: 2))x the floor's connections/s") }
        } else {
            print(shareLine)
        }
        print("- \(cpu)")
        return missed
    }
}
