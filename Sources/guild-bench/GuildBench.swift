import ArgumentParser
import Foundation
import Glibc
import GuildHarness
import Synchronization

@main
struct GuildBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "guild-bench",
        abstract: "Benchmarks guildd on its real socket against baselines measured in the same run.",
        discussion: """
            Benchmarks: \(GuildBench.benchmarks.map { "\($0.name) (\($0.summary))" }.joined(separator: "; ")).
            Progress goes to stderr, the Markdown table to stdout. The exit status is 0 even when a target \
            is missed; it is non-zero only when a benchmark fails with an error. The fuzz and soak modes are \
            subcommands, not part of the default run.
            """,
        subcommands: [
            FuzzCommand.self, SoakCommand.self, ChurnCommand.self, HostileClient.self, ObjectReader.self, ColdEcho.self, NIOEcho.self,
            ChurnEcho.self,
        ]
    )

    /// Every benchmark, in run order. `memory` stays last: its peak figure covers the ones before it.
    static let benchmarks: [any Benchmark] = [
        PingLatency(),
        PingThroughput(),
        DurableWrites(),
        ColdStart(),
        FanOut(),
        GroupMessages(),
        Scale(),
        Replay(),
        AVChatRoom(),
        MemberPaging(),
        Hostile(),
        Objects(),
        Things(),
        Triggers(),
        AggregatedHistory(),
        PostgresLog(),
        Memory(),
    ]

    @Option(help: "The guildd executable (default: guildd next to this executable).")
    var guildd: String?

    @Option(
        help: "Directory in which a fresh gb-XXXXXX work directory is made (default: /tmp). Keep it short: socket paths must stay under 100 bytes."
    )
    var workDir: String?

    @Option(help: "Seconds per throughput measurement (default 3; 0.5 with --quick).")
    var duration: Double?

    @Option(help: "Repetitions a median is taken over (default 5; 3 with --quick).")
    var runs: Int?

    @Flag(help: "Smaller counts, for a smoke run of about 20 s.")
    var quick = false

    @Flag(help: "Also print the results as one JSON object (one line, after the table).")
    var json = false

    @Option(
        help: ArgumentHelp(
            "fan-out's sustained phase at this many notifications/s (default: 500,000, half the 1,000,000/s target), "
                + "so two guildd binaries are compared under one load.",
            valueName: "notifications/s"
        )
    )
    var sustainedRate: Double?

    @Option(
        help: ArgumentHelp(
            "history's states of one thing (default: 1,000,000; 100,000 with --quick), for a shorter load.",
            valueName: "count"
        )
    )
    var historyStates: Int?

    @Option(help: ArgumentHelp("Run only these benchmarks (comma-separated, or repeat the option).", valueName: "name[,name]"))
    var only: [String] = []

    @Flag(help: "Keep the work directory (databases, logs).")
    var keep = false

    var selectedNames: [String] {
        self.only.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    func validate() throws {
        let known = Set(Self.benchmarks.map(\.name))
        let unknown = self.selectedNames.filter { !known.contains($0) }
        guard unknown.isEmpty else {
            throw ValidationError(
                "unknown benchmark(s) \(unknown.joined(separator: ", ")); known: \(Self.benchmarks.map(\.name).joined(separator: ", "))"
            )
        }
        if let duration, !(duration > 0) { throw ValidationError("--duration must be positive") }
        if let runs, runs < 1 { throw ValidationError("--runs must be at least 1") }
        if let historyStates, historyStates < 1 { throw ValidationError("--history-states must be at least 1") }
    }

    mutating func run() async throws {
        let guilddPath = try Self.guilddPath(self.guildd)
        let workDir = try Self.makeWorkDir(in: self.workDir ?? "/tmp")
        // The longest socket path used is cold-sN.sock.
        let longest = workDir + "/cold-s\(self.runs ?? 5).sock"
        guard longest.utf8.count < 100 else {
            try? FileManager.default.removeItem(atPath: workDir)
            throw ValidationError("work directory \(workDir) is too long for socket paths (\(longest.utf8.count) bytes ≥ 100)")
        }
        Cleanup.shared.arm(workDir: workDir, keep: self.keep)

        let selected = self.selectedNames
        let benchmarks = Self.benchmarks.filter { selected.isEmpty || selected.contains($0.name) }
        let context = BenchContext(
            guilddPath: guilddPath,
            workDir: workDir,
            duration: self.duration ?? (self.quick ? 0.5 : 3),
            runs: self.runs ?? (self.quick ? 3 : 5),
            quick: self.quick,
            sustainedRate: self.sustainedRate,
            historyStates: self.historyStates
        )
        Log.progress(
            "guild-bench: guildd \(guilddPath), work dir \(workDir), \(context.runs) runs × \(context.duration) s\(self.quick ? " (quick)" : "")"
        )

        var report = Report()
        report.settings = [
            "guildd": guilddPath,
            "workDir": workDir,
            "duration": "\(context.duration)",
            "runs": "\(context.runs)",
            "quick": "\(self.quick)",
            "cpus": "\(ProcessInfo.processInfo.activeProcessorCount)",
            "date": ISO8601DateFormatter().string(from: Date()),
        ]
        let load = Self.loadAverage()
        if let load {
            report.settings["loadavg"] = load.text
            if load.oneMinute > 0.5 {
                Log.progress("warning: load average \(load.text) — other work on this machine will skew the numbers")
            }
        }
        let started = monotonicNanos()
        for benchmark in benchmarks {
            Log.progress("▶ \(benchmark.name): \(benchmark.summary)")
            let benchmarkStarted = monotonicNanos()
            do {
                report.measurements += try await benchmark.run(context)
                Log.progress("  done in \(Format.decimal(Double(monotonicNanos() - benchmarkStarted) / 1e9, digits: 1)) s")
            } catch {
                Log.progress("  ✗ \(benchmark.name) failed: \(error)")
                report.failures.append(.init(benchmark: benchmark.name, error: "\(error)"))
            }
        }
        await context.stopSharedDaemon()
        Cleanup.shared.run()
        Log.progress("finished in \(Format.decimal(Double(monotonicNanos() - started) / 1e9, digits: 1)) s; \(report.summary())")
        if self.keep { Log.progress("work dir kept: \(workDir)") }

        print(report.markdown())
        if self.json { print(try report.json()) }
        if !report.failures.isEmpty { throw ExitCode(1) }
    }

    /// The 1, 5 and 15 minute load averages from /proc/loadavg.
    private static func loadAverage() -> (oneMinute: Double, text: String)? {
        guard let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) else { return nil }
        let fields = text.split(separator: " ").prefix(3)
        guard let first = fields.first.flatMap({ Double($0) }) else { return nil }
        return (first, fields.joined(separator: " "))
    }

    /// This executable's path, for its own subcommands and the guildd beside it.
    static var executablePath: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }

    /// Starts this executable's hidden server subcommand `subcommand` (a floor: `nio-echo`, `churn-echo`) on
    /// `socket` in a process of its own, as guildd runs, and waits until the socket accepts connections.
    static func launchServer(_ subcommand: String, socket: String, logPath: String) async throws -> Daemon {
        let server = try await Daemon.launch(
            name: "guild-bench \(subcommand)",
            executable: Self.executablePath,
            arguments: [subcommand, "--socket", socket],
            socketPath: socket,
            logPath: logPath
        )
        do {
            // The file appears when the socket is bound, a moment before it listens.
            let deadline = ContinuousClock.now + .seconds(10)
            while true {
                try server.checkRunning()
                if let fd = try? RawSocket.connect(socket) {
                    _ = close(fd)
                    return server
                }
                guard ContinuousClock.now < deadline else { throw DaemonError("guild-bench \(subcommand): \(socket) not listening after 10 s") }
                try await Task.sleep(for: .milliseconds(2))
            }
        } catch {
            await server.stop()
            throw error
        }
    }

    /// `--guildd`, else guildd next to this executable; throws when it is not an executable file.
    static func guilddPath(_ option: String?) throws -> String {
        let path: String
        if let option {
            path = option
        } else {
            path = URL(fileURLWithPath: Self.executablePath).deletingLastPathComponent().appendingPathComponent("guildd").path
        }
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw ValidationError("guildd not found at \(path); build it (scripts/build-release guildd) or pass --guildd")
        }
        return path
    }

    static func makeWorkDir(in parent: String) throws -> String {
        try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        var template = Array((parent.hasSuffix("/") ? parent : parent + "/").utf8CString.dropLast()) + Array("gb-XXXXXX".utf8CString)
        guard let result = mkdtemp(&template) else {
            throw ValidationError("cannot create a work directory in \(parent): \(String(cString: strerror(errno)))")
        }
        return String(cString: result)
    }
}

/// Terminates child processes and removes the work directory: at the end of a run, on an error, and on
/// SIGINT, SIGTERM or SIGHUP (unless that signal was ignored when we started, as for background jobs or nohup).
///
/// The signal handler only writes the signal number to a pipe; a dedicated thread reads it and cleans up.
final class Cleanup: Sendable {
    static let shared = Cleanup()

    private struct State {
        var workDir: String?
        var keep = false
    }

    private let state = Mutex(State())

    func arm(workDir: String, keep: Bool) {
        self.state.withLock {
            $0.workDir = workDir
            $0.keep = keep
        }
        SignalPipe.install(signals: [SIGINT, SIGTERM, SIGHUP]) { signalNumber in
            Log.progress("guild-bench: signal \(signalNumber), stopping child processes and cleaning up")
            Cleanup.shared.run()
            _exit(128 + signalNumber)
        }
        atexit { Cleanup.shared.run() }
    }

    /// Idempotent; a concurrent caller waits until the first one is done.
    func run() {
        self.state.withLock { state in
            ChildProcesses.shared.terminateAll()
            if let workDir = state.workDir, !state.keep {
                try? FileManager.default.removeItem(atPath: workDir)
            }
            state.workDir = nil
        }
    }
}

/// Self-pipe signal handling: async-signal-safe handler, work done on a thread.
enum SignalPipe {
    nonisolated(unsafe) private static var writeDescriptor: Int32 = -1

    static func install(signals: [Int32], handler: @escaping @Sendable (Int32) -> Void) {
        var descriptors: [Int32] = [-1, -1]
        guard pipe(&descriptors) == 0 else { return }
        for descriptor in descriptors { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        Self.writeDescriptor = descriptors[1]
        let readDescriptor = descriptors[0]
        let thread = Thread {
            var byte: UInt8 = 0
            while true {
                let count = read(readDescriptor, &byte, 1)
                if count == 1 { handler(Int32(byte)) }
                if count == 0 || (count < 0 && errno != EINTR) { return }
            }
        }
        thread.name = "signals"
        thread.start()
        for signalNumber in signals {
            var current = sigaction()
            sigaction(signalNumber, nil, &current)
            if unsafeBitCast(current.__sigaction_handler.sa_handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self) { continue }
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { signalNumber in
                var byte = UInt8(truncatingIfNeeded: signalNumber)
                _ = write(SignalPipe.writeDescriptor, &byte, 1)
            }
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            sigaction(signalNumber, &action, nil)
        }
    }
}
