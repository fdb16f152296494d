import ArgumentParser
import Foundation
import Glibc
import GuildHarness
import GuildProtocol
import Synchronization

/// `guild-bench fuzz`: mutated valid calls from many connections against a guildd of its own, with a
/// liveness check on a fresh connection every second. Not part of the benchmark run.
///
/// Liveness: `system.ping`, a write (`user.registerPseudo`), `session.authenticate` with the token it gave
/// and `session.whoami`, each answered within 1 s. A check that fails, or guildd exiting, ends the run with
/// exit status 1, a report of which second and which check, and the messages sent in the seconds before
/// saved to a file for reproduction.
struct FuzzCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fuzz",
        abstract: "Mutated JSON-RPC calls from many connections; fails when guildd stops answering within 1 s.",
        discussion: """
            The fuzz connections run on a root peer, so they have admin rights (they can reach every method). \
            The messages are built from rpc.discover's method list and param schemas; see FuzzGenerator.
            """
    )

    /// `--guildd`, `--work-dir` and `--keep` are the main command's options.
    @ParentCommand var bench: GuildBench

    @Option(help: "How long to fuzz.")
    var seconds: Double = 60

    @Option(help: "Fuzzing connections, each on its own thread.")
    var connections: Int = 16

    @Option(help: "Seed of the generator (default: random; printed, so a run can be repeated).")
    var seed: UInt64?

    @Option(help: "Seconds of sent messages saved on a failure.")
    var history: Double = 5

    @Option(help: "Where a failure's messages are saved (default: ./guild-fuzz-failure-<time>.jsonl).")
    var failureFile: String?

    @Option(help: "A method not to call (repeatable), e.g. to look past a known failure.")
    var skipMethod: [String] = []

    @Option(help: "Extra guildd arguments (repeatable), e.g. --daemon-argument=--max-frame-bytes=1048576.")
    var daemonArgument: [String] = []

    func validate() throws {
        guard self.seconds > 0 else { throw ValidationError("--seconds must be positive") }
        guard (1...1_000).contains(self.connections) else { throw ValidationError("--connections must be 1...1000") }
    }

    func run() async throws {
        let context = try ModeOptions.makeContext(self.bench)
        let seed = self.seed ?? UInt64.random(in: 1...UInt64.max)
        try raiseFileLimit(atLeast: self.connections + 256)
        let daemon = try await launchOwnDaemon(context, name: "fuzz", extraArguments: self.daemonArgument)
        let socketPath = daemon.socketPath
        var known = try await onThread("fuzz-setup") { try Self.prepare(socketPath) }
        known.methods.removeAll { self.skipMethod.contains($0.name) }
        Log.progress(
            "fuzz: \(known.methods.count) methods from rpc.discover, \(self.connections) connections, \(Format.decimal(self.seconds, digits: 0)) s, seed \(seed)"
        )

        let log = SentLog(keepSeconds: self.history)
        let stop = StopFlag()
        let workers = (0..<self.connections).map { index in
            let generator = FuzzGenerator(methods: known.methods, known: known.known, seed: seed &+ UInt64(index) &* 0x9E37_79B9)
            let worker = FuzzWorker(index: index, socketPath: socketPath, generator: generator, log: log, stop: stop)
            return Task.detached { try await onThread("fuzz-\(index)") { worker.run() } }
        }

        let started = monotonicNanos()
        var liveness = LivenessTally()
        var failure: (second: Int, check: String, detail: String, at: UInt64)?
        var second = 0
        while Double(monotonicNanos() - started) / 1e9 < self.seconds {
            // On the second (a check that took long is followed by the next one at once).
            second += 1
            let tick = started + UInt64(second) * 1_000_000_000
            let now = monotonicNanos()
            if tick > now { try await Task.sleep(for: .nanoseconds(tick - now)) }
            let at = monotonicNanos()
            guard daemon.process.isRunning else {
                failure = (second, "process", "guildd exited with status \(daemon.process.endedStatus.map(String.init) ?? "unknown")", at)
                break
            }
            do {
                let timings = try await onThread("liveness") { try Liveness.check(socketPath) }
                liveness.add(timings)
            } catch let error as Liveness.Failure {
                failure = (second, error.check, error.detail, at)
                break
            }
            if second % 10 == 0 {
                let memory = try? daemon.memory()
                Log.progress(
                    "  \(second) s: liveness ok; \(Format.grouped(Double(FuzzWorker.totals.sent.load(ordering: .relaxed)))) messages sent; "
                        + "guildd VmRSS \(memory.map { MeasurementUnit.mebibytes.format($0.rssMiB) } ?? "?")"
                )
            }
        }
        stop.set()
        let entries = log.freeze()
        var stats = FuzzWorker.Stats()
        for worker in workers {
            if let result = try? await worker.value { stats.add(result) }
        }
        let memory = try? daemon.memory()
        let stopStarted = monotonicNanos()
        await daemon.stop()
        let stopSeconds = Double(monotonicNanos() - stopStarted) / 1e9
        reportDaemonLogProblems(daemon, context)

        print("## guild-bench fuzz")
        print(
            "- seed \(seed), \(self.connections) connections, \(second) s checked"
                + (self.skipMethod.isEmpty ? "" : "; methods skipped: \(self.skipMethod.joined(separator: ", "))")
        )
        print(
            "- sent \(Format.grouped(Double(stats.rounds))) rounds (\(Format.grouped(Double(stats.bytes))) bytes), "
                + "read \(Format.grouped(Double(stats.replies))) reply lines (\(stats.internalErrors) with -32603 internal error), "
                + "\(stats.reconnects) reconnects"
        )
        print("- liveness: " + liveness.describe())
        print(
            "- guildd VmHWM \(memory.map { MeasurementUnit.mebibytes.format($0.hwmMiB) } ?? "—"), "
                + "SIGTERM exit after \(Format.decimal(stopSeconds, digits: 1)) s"
                + (stopSeconds >= 5 ? " (it ignored SIGTERM and was killed with SIGKILL)" : "")
        )
        guard let failure else {
            print("- result: PASS (every liveness check answered within 1 s)")
            return
        }
        let path =
            self.failureFile
            ?? FileManager.default.currentDirectoryPath + "/guild-fuzz-failure-\(Int(Date().timeIntervalSince1970)).jsonl"
        let saved = try? SentLog.write(
            entries,
            header: [
                "failure": failure.detail, "check": failure.check, "second": "\(failure.second)", "seed": "\(seed)",
                "note": "one record per message line sent by the fuzz connections; ms is relative to the failed check",
            ],
            reference: failure.at,
            to: path
        )
        print("- result: **FAIL** at second \(failure.second): \(failure.check): \(failure.detail)")
        print("- \(entries.count) sends of the last \(Format.decimal(self.history, digits: 0)) s saved to \(saved ?? "(could not write \(path))")")
        throw ExitCode(1)
    }

    /// What the fuzzers draw on: discovered methods, four pseudo users and a group of them.
    struct Prepared: Sendable {
        var methods: [FuzzGenerator.Method]
        var known: FuzzGenerator.Known
    }

    static func prepare(_ socketPath: String) throws -> Prepared {
        let users = try IMSetup.registerPseudoUsers(socketPath, count: 4, namePrefix: "fuzz", connections: 1, batchSize: 4)
        let admin = try LineConnection(path: socketPath, timeout: 30, capacity: 1 << 20)
        defer { admin.close() }
        _ = try admin.call(
            GroupMethods.Create.self,
            .init(name: "fuzz", groupID: "fuzz", type: .work, members: users.dropFirst().map { .init(userID: $0.userID) }, owner: users[0].userID)
        )
        _ = try admin.call(GroupMethods.Create.self, .init(name: "fuzz basic", groupID: "fuzzbasic"))
        try admin.send(SystemMethods.Discover.self, NoParams())
        let reply = try admin.readLine()
        guard let envelope = try JSONSerialization.jsonObject(with: Data(reply)) as? [String: Any], let document = envelope["result"] else {
            throw DaemonError("rpc.discover: no result: \(RawRPC.preview(reply))")
        }
        let methods = FuzzGenerator.methods(fromDiscover: document)
        guard !methods.isEmpty else { throw DaemonError("rpc.discover listed no methods") }
        return Prepared(
            methods: methods,
            known: .init(userIDs: users.map(\.userID), groupIDs: ["fuzz", "fuzzbasic"], tokens: users.map(\.accessToken))
        )
    }
}

/// The per-check round-trip times of the liveness checks that passed.
struct LivenessTally {
    var samples: [String: [Double]] = [:]

    mutating func add(_ timings: [(check: String, ms: Double)]) {
        for timing in timings { self.samples[timing.check, default: []].append(timing.ms) }
    }

    func describe() -> String {
        let ms = MeasurementUnit.milliseconds
        return Liveness.checks.map { check in
            let values = self.samples[check] ?? []
            return "\(check) p50 \(ms.format(Stats.percentile(values, 50))) p99 \(ms.format(Stats.percentile(values, 99))) "
                + "max \(ms.format(values.max() ?? .nan))"
        }.joined(separator: "; ")
    }
}

/// The liveness check: a fresh connection, each call answered within 1 s.
enum Liveness {
    struct Failure: Error {
        var check: String
        var detail: String
    }

    static let checks = ["connect", "system.ping", "user.registerPseudo", "session.authenticate", "session.whoami"]
    static let limit = 1.0

    /// Blocking: the round-trip time of each check in ms; throws the first that fails or takes over 1 s.
    static func check(_ socketPath: String) throws -> [(check: String, ms: Double)] {
        var timings: [(check: String, ms: Double)] = []
        func timed<T>(_ name: String, _ body: () throws -> T) throws -> T {
            let started = monotonicNanos()
            let value: T
            do {
                value = try body()
            } catch {
                let ms = Double(monotonicNanos() - started) / 1e6
                // LineConnection reports a receive timeout as end of stream: tell them apart by the time.
                let what = ms >= Self.limit * 1000 * 0.98 ? "no answer within 1 s" : "failed: \(error)"
                throw Failure(check: name, detail: "\(what) (after \(MeasurementUnit.milliseconds.format(ms)))")
            }
            let ms = Double(monotonicNanos() - started) / 1e6
            guard ms <= Self.limit * 1000 else {
                throw Failure(check: name, detail: "answered after \(MeasurementUnit.milliseconds.format(ms)) (limit 1 s)")
            }
            timings.append((name, ms))
            return value
        }
        let connection = try timed("connect") { try LineConnection(path: socketPath, timeout: Self.limit) }
        defer { connection.close() }
        let pong = try timed("system.ping") { try connection.call(SystemMethods.Ping.self, NoParams()) }
        guard pong == "pong" else { throw Failure(check: "system.ping", detail: "answered \(pong)") }
        let registered = try timed("user.registerPseudo") {
            try connection.call(UserMethods.RegisterPseudo.self, .init(displayName: "liveness"))
        }
        _ = try timed("session.authenticate") {
            try connection.call(SessionMethods.Authenticate.self, .init(accessToken: registered.accessToken))
        }
        let session = try timed("session.whoami") { try connection.call(SessionMethods.WhoAmI.self, NoParams()) }
        guard "\(session)".contains(registered.user.userID) else {
            throw Failure(check: "session.whoami", detail: "names another user: \(session)")
        }
        return timings
    }
}
