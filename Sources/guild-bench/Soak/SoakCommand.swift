import ArgumentParser
import Foundation
import Glibc
import GuildHarness
import GuildProtocol

/// `guild-bench soak`: minutes (or hours) of mixed work from many connections at once: group messages and pseudo
/// users, reads, subscribers that leave and resume with `since`, object writes and queries, thing commands and
/// results, password logins and token refreshes, and `guildctl` runs (a new process and connection each).
/// Object writers keep their newest 200 objects (`--keep-objects`), so the data stays the same size and what
/// grows over the run is the daemon's age, not its buckets (messages, users and events still accumulate).
///
/// Per minute it reports requests, errors by code, p50/p99 per kind of call, and guildd's VmRSS, open descriptors,
/// database and WAL size, its writer's slow commits, own checkpoints and pruning (``SoakDaemonCounters``), the
/// machine's CPU time (busy, taken by the hypervisor) and guildd's cores (``MachineCPU``), and a same-run floor (a
/// plain SQLite commit in the bench's process every 20 ms), which tell a slow minute's cause.
/// Targets: from the third minute on, every minute's p99 of each kind and its VmRSS within
/// 1.2x of the second minute's; no error the protocol does not document; no crash; afterwards every acknowledged
/// write is there (each message once in the replayed event log, which has no gap or duplicate, every pseudo user
/// and object readable) and `system.check` passes.
///
/// With `--kill`, guildd is killed (SIGKILL) every 30-60 s and restarted on the same database, clients reconnect
/// and subscribers resume with `since`: the durability soak. The per-minute targets do not apply then.
/// Not part of the benchmark run; exit status 1 when a check fails.
struct SoakCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "soak",
        abstract: "Mixed work for minutes or hours: checks that cost stays flat and nothing acknowledged is lost (--kill: kill -9 too)."
    )

    /// `--guildd`, `--work-dir` and `--keep` are the main command's options.
    @ParentCommand var bench: GuildBench

    @Option(help: "How long to run.")
    var minutes: Double = 10

    @Option(help: "Connections: a tenth subscribe to every event, the rest read and write (see the command's description).")
    var connections: Int = 200

    @Flag(help: "Kill guildd with SIGKILL every --kill-min-seconds to --kill-max-seconds and restart it.")
    var kill = false

    @Option(help: "Shortest time between two kills, in seconds.")
    var killMinSeconds: Double = 30

    @Option(help: "Longest time between two kills, in seconds.")
    var killMaxSeconds: Double = 60

    @Option(help: "Pause after each call of a worker, in seconds (guildctl runs pause four times as long).")
    var pace: Double = 0.25

    @Option(help: "Subscribers leave and resume with since this often, in seconds.")
    var resumeSeconds: Double = 20

    @Option(help: "The guildctl executable (default: guildctl next to this executable).")
    var guildctl: String?

    @Option(
        help:
            "Object writers keep their newest this many objects and delete the oldest after each create, so the data stays the same size (0: keep all; the data grows)."
    )
    var keepObjects: Int = 200

    @Option(help: "Extra guildd arguments (repeatable).")
    var daemonArgument: [String] = []

    static let groups = 10
    /// When after a (re)start VmRSS is sampled (with --kill).
    static let sampleAfter = 20.0
    /// The per-minute targets: each later minute's p99 and VmRSS at most this times the second minute's.
    static let flat = 1.2

    func validate() throws {
        guard self.minutes > 0 else { throw ValidationError("--minutes must be positive") }
        guard self.connections >= 20 else { throw ValidationError("--connections must be at least 20") }
        guard !self.kill || (self.killMinSeconds > Self.sampleAfter && self.killMaxSeconds >= self.killMinSeconds) else {
            throw ValidationError("need \(Int(Self.sampleAfter)) < --kill-min-seconds ≤ --kill-max-seconds")
        }
    }

    /// The workers of `connections` connections: with --kill the message writers, readers and subscribers of the
    /// durability soak; otherwise every kind of work.
    func roles(users: [PseudoUser], guildctl: String?) -> [SoakWorker.Role] {
        let subscribers = max(2, self.connections / 10)
        var roles: [SoakWorker.Role] = Array(repeating: .subscriber, count: subscribers)
        if self.kill {
            let readers = self.connections * 3 / 10
            let writers = self.connections - subscribers - readers
            for index in 0..<writers { roles.append(.writer(user: users[index], groupID: Self.groupID(index))) }
            for index in 0..<readers { roles.append(.reader(user: users[writers + index], groupID: Self.groupID(writers + index))) }
            return roles
        }
        let tenth = self.connections / 10
        let writers = 2 * tenth
        let readers = 2 * tenth
        for index in 0..<writers { roles.append(.writer(user: users[index], groupID: Self.groupID(index))) }
        for index in 0..<readers { roles.append(.reader(user: users[writers + index], groupID: Self.groupID(writers + index))) }
        for index in 0..<tenth { roles.append(.objects(user: users[writers + readers + index])) }
        // A thing pair holds two connections.
        roles += Array(repeating: .things, count: max(1, tenth / 2))
        roles += Array(repeating: .logins, count: tenth)
        if let guildctl { roles += Array(repeating: .guildctl(path: guildctl), count: 2) }
        roles += Array(repeating: .schedules, count: Self.scheduleWorkers)
        return roles
    }

    /// Schedule workers: each fires about a trigger a second, so ten make about 480 firings a minute, enough that
    /// a minute's p99 is not its one or two slowest firings (two made about 96, whose p99 is the second slowest
    /// firing of the minute: one late wake-up in two hours read as a p99 of 4.8x).
    static let scheduleWorkers = 10

    /// The pseudo users the roles need.
    var userCount: Int {
        self.kill ? self.connections - max(2, self.connections / 10) : 5 * (self.connections / 10)
    }

    func run() async throws {
        let context = try ModeOptions.makeContext(self.bench)
        try raiseFileLimit(atLeast: self.connections + 256)
        let guildctl = try self.guildctlPath()
        var daemon = try await launchOwnDaemon(context, name: "soak", extraArguments: self.daemonArgument)
        let socketPath = daemon.socketPath
        let databasePath = context.path("soak.db")
        let users = try await onThread("soak-setup") { [userCount] in try Self.prepare(socketPath, users: userCount) }
        let recorder = SoakRecorder()
        let roles = self.roles(users: users, guildctl: guildctl)
        Log.progress(
            "soak: \(Format.decimal(self.minutes, digits: 1)) min, \(roles.count) workers"
                + (self.kill ? "; kill -9 every \(Int(self.killMinSeconds))-\(Int(self.killMaxSeconds)) s" : "; per-minute figures")
        )

        let stop = StopFlag()
        let catchUp = SoakCatchUp()
        let (pace, resume) = (self.pace, self.kill ? nil : self.resumeSeconds)
        let workers = roles.enumerated().map { index, role in
            var worker = SoakWorker(index: index, role: role, socketPath: socketPath, stop: stop, pace: pace, recorder: recorder)
            worker.keepObjects = self.keepObjects
            worker.resumeEvery = resume
            worker.catchUp = catchUp
            let isSubscriber = if case .subscriber = role { true } else { false }
            return (isSubscriber, Task.detached { [worker] in try await worker.run() })
        }

        // The same-run floor beside the daemon (not with --kill: those minutes are not judged).
        let floor: Task<Void, any Error>? =
            self.kill
            ? nil
            : Task.detached { [recorder] in
                let baseline = try SQLiteBaseline(path: context.path("soak-floor.db"), rows: 1_000)
                defer { try? baseline.close() }
                try await onThread("soak-floor") { try Self.floor(baseline, stop: stop, recorder: recorder) }
            }

        let started = monotonicNanos()
        let deadline = started + UInt64(self.minutes * 60e9)
        var samples: [Double] = []
        var restartSeconds: [Double] = []
        var kills = 0
        if self.kill {
            while monotonicNanos() < deadline {
                let cycleStart = monotonicNanos()
                let nextKill = cycleStart + UInt64(Double.random(in: self.killMinSeconds...self.killMaxSeconds) * 1e9)
                let sampleAt = cycleStart + UInt64(Self.sampleAfter * 1e9)
                if sampleAt < deadline {
                    try await Task.sleep(for: .nanoseconds(sampleAt - monotonicNanos()))
                    let memory = try daemon.memory()
                    samples.append(memory.rssMiB)
                    Log.progress(
                        "  \(Int(Double(monotonicNanos() - started) / 1e9)) s: guildd pid \(daemon.pid) VmRSS \(MeasurementUnit.mebibytes.format(memory.rssMiB)) "
                            + "\(Self.sampleAfter) s after (re)start"
                    )
                }
                guard nextKill < deadline else { break }
                try await Task.sleep(for: .nanoseconds(nextKill - min(nextKill, monotonicNanos())))
                Glibc.kill(daemon.pid, SIGKILL)
                await daemon.stop(timeout: 10)
                kills += 1
                unlink(socketPath)
                let restartStarted = monotonicNanos()
                daemon = try await launchOwnDaemon(context, name: "soak", extraArguments: self.daemonArgument)
                restartSeconds.append(Double(monotonicNanos() - restartStarted) / 1e9)
                Log.progress("  kill -9 #\(kills); restarted in \(Format.decimal(restartSeconds.last!, digits: 2)) s")
            }
        } else {
            // At the end of each minute of the run: guildd's resources, the machine's CPU time, and progress.
            var minute = 0
            var cpu = MachineCPU.read(pid: daemon.pid)
            while true {
                let minuteEnd = started + UInt64(Double(minute + 1) * 60e9)
                guard minuteEnd <= deadline else { break }
                try await Task.sleep(for: .nanoseconds(minuteEnd - min(minuteEnd, monotonicNanos())))
                try daemon.checkRunning()
                let cpuNow = MachineCPU.read(pid: daemon.pid)
                let figures = try? await onThread("soak-metrics") { try Self.daemonFigures(socketPath) }
                recorder.sample(
                    minute: minute,
                    pid: daemon.pid,
                    databasePath: databasePath,
                    databaseHeapBytes: figures?.heap,
                    counters: figures?.counters,
                    machine: cpu.flatMap { earlier in cpuNow?.since(earlier) }
                )
                cpu = cpuNow
                if let recorded = recorder.recorded.dropFirst(minute).first {
                    Log.progress(
                        "  minute \(minute + 1): \(Format.grouped(Double(recorded.requests))) requests, "
                            + "\(recorded.errors.values.reduce(0, +)) errors, \(recorded.failures) failures, VmRSS "
                            + "\(recorded.rssBytes.map { MeasurementUnit.mebibytes.format(Double($0) / 1_048_576) } ?? "—")"
                    )
                }
                minute += 1
            }
        }
        if monotonicNanos() < deadline { try await Task.sleep(for: .nanoseconds(deadline - monotonicNanos())) }
        stop.set()
        try await floor?.value
        var tallies: [SoakWorker.Tally] = []
        for (isSubscriber, worker) in workers where !isSubscriber { tallies.append((try? await worker.value) ?? SoakWorker.Tally()) }
        // Every write has ended: the subscribers read on to the log's head as it is now.
        let head = try await onThread("soak-head") { try Self.head(socketPath) }
        catchUp.set(head: head, seconds: 60)
        for (isSubscriber, worker) in workers where isSubscriber { tallies.append((try? await worker.value) ?? SoakWorker.Tally()) }
        let seconds = Double(monotonicNanos() - started) / 1e9
        try daemon.checkRunning()

        // The per-minute table first: what the run measured is printed even if the verification fails.
        let minuteFailures = self.kill ? [] : Self.reportMinutes(recorder)
        Log.progress("  load stopped; verifying")
        let acknowledged = tallies.map(\.acknowledgedTexts)
        let unknown = tallies.flatMap(\.unknownTexts)
        let createdUsers = tallies.flatMap(\.acknowledgedUsers)
        let createdObjects = tallies.flatMap(\.acknowledgedObjects)
        let createdTriggers = tallies.flatMap(\.acknowledgedTriggers)
        let verification = try await onThread("soak-verify") {
            try SoakVerification.run(
                socketPath,
                acknowledged: acknowledged,
                unknown: unknown,
                users: createdUsers,
                objects: createdObjects,
                triggers: createdTriggers
            )
        }
        let memory = try? daemon.memory()
        await daemon.stop()
        reportDaemonLogProblems(daemon, context)

        let subscriberTallies = tallies.filter { $0.events > 0 || $0.resubscriptions > 0 }
        let gaps = subscriberTallies.reduce(0) { $0 + $1.gaps }
        let duplicates = subscriberTallies.reduce(0) { $0 + $1.duplicates }
        let behind = subscriberTallies.filter { $0.lastSeq != verification.head }.count
        let errors = tallies.reduce(0) { $0 + $1.errors }
        var failures: [String] = verification.failures
        if gaps > 0 || duplicates > 0 { failures.append("subscribers saw \(gaps) gaps and \(duplicates) duplicates") }
        if behind > 0 { failures.append("\(behind) subscribers ended before the last seq \(verification.head)") }

        let mib = MeasurementUnit.mebibytes
        print("## guild-bench soak\(self.kill ? " --kill" : "")")
        print("")
        print(
            "- \(Format.decimal(seconds / 60, digits: 1)) min, \(roles.count) workers"
                + (self.kill
                    ? ", \(kills) kill -9 + restarts (restart to ready: "
                        + "\(restartSeconds.isEmpty ? "—" : "\(Format.decimal(Stats.median(restartSeconds), digits: 2)) s median, \(Format.decimal(restartSeconds.max()!, digits: 2)) s max"))"
                    : "")
        )
        print(
            "- writes: \(Format.grouped(Double(acknowledged.reduce(0) { $0 + $1.count }))) messages, \(Format.grouped(Double(createdUsers.count))) pseudo users, "
                + "\(Format.grouped(Double(createdObjects.count))) objects (kept) and \(Format.grouped(Double(tallies.reduce(0) { $0 + $1.commands }))) "
                + "commands acknowledged, \(unknown.count) messages in flight at a kill (\(verification.unknownCommitted) of them committed); "
                + "reads: \(Format.grouped(Double(tallies.reduce(0) { $0 + $1.reads }))); "
                + "reconnects \(Format.grouped(Double(tallies.reduce(0) { $0 + $1.reconnects }))); call errors \(errors)"
                + (tallies.compactMap(\.firstError).first.map { " (first: \($0.prefix(200)))" } ?? "")
        )
        print(
            "- acknowledged: \(verification.missing) messages \(verification.replayFrom > 0 ? "not in the kept log" : "missing"), \(verification.duplicated) duplicated; "
                + "pseudo users missing: \(verification.usersMissing); objects missing: \(verification.objectsMissing); "
                + "\(Format.grouped(Double(createdTriggers.count))) single-time triggers made, \(verification.triggersNotOnce) not fired exactly once"
        )
        print(
            "- events: head seq \(Format.grouped(Double(verification.head))), replay from \(verification.replayFrom)"
                + (verification.replayFrom > 0 ? " (the events before it pruned by the retention)" : "")
                + ": \(verification.replayGaps) gaps, "
                + "\(verification.replayDuplicates) duplicates; subscribers: \(Format.grouped(Double(subscriberTallies.reduce(0) { $0 + $1.events }))) "
                + "events received, \(subscriberTallies.reduce(0) { $0 + $1.resubscriptions }) resubscriptions with since, \(gaps) gaps, "
                + "\(duplicates) duplicates" + (subscriberTallies.compactMap(\.firstGap).first.map { " (first gap: \($0))" } ?? "")
        )
        print("- system.check: \(verification.check)")
        if self.kill {
            let flat = (samples.max() ?? 0) <= 1.5 * (samples.first ?? .infinity)
            if !flat { failures.append("VmRSS not flat: \(samples.map { Format.decimal($0, digits: 1) })") }
            print(
                "- VmRSS \(Int(Self.sampleAfter)) s after each (re)start: \(samples.map { mib.format($0) }.joined(separator: ", ")) "
                    + "(\(flat ? "flat" : "NOT flat"): max ≤ 1.5 × first); VmHWM of the last process \(memory.map { mib.format($0.hwmMiB) } ?? "—")"
            )
        } else {
            failures += minuteFailures
        }
        if failures.isEmpty {
            print("- result: PASS")
        } else {
            print("- result: **FAIL**: " + failures.joined(separator: "; "))
            throw ExitCode(1)
        }
    }

    /// `--guildctl`, else guildctl next to this executable; nil (no guildctl workers) when there is none.
    private func guildctlPath() throws -> String? {
        if let path = self.guildctl {
            guard FileManager.default.isExecutableFile(atPath: path) else { throw ValidationError("--guildctl \(path) is not executable") }
            return path
        }
        let beside = URL(fileURLWithPath: GuildBench.executablePath).deletingLastPathComponent().appendingPathComponent("guildctl").path
        guard FileManager.default.isExecutableFile(atPath: beside) else {
            Log.progress("  no guildctl beside guild-bench (build it, or pass --guildctl): no guildctl workers")
            return nil
        }
        return beside
    }

    /// Prints the per-minute table and checks the targets against the second minute; returns what failed.
    static func reportMinutes(_ recorder: SoakRecorder) -> [String] {
        // Minutes whose resources were sampled ran whole; a last partial one is left out.
        let minutes = recorder.recorded.filter { $0.rssBytes != nil }
        let kinds = SoakRecorder.Kind.allCases.filter { kind in minutes.contains { $0.latencies[kind] != nil } }
        let mib = MeasurementUnit.mebibytes
        func ms(_ seconds: Double) -> String { Format.decimal(seconds * 1000, digits: 1) }
        print("")
        print(
            "p50/p99 in ms per kind of call (floor: the bench's own SQLite commit beside guildd); errors by code; failures: calls "
                + "whose connection or process failed; guildd's writer in the minute: commits over "
                + "\(Format.decimal(Double(SoakDaemonCounters.slowCommitBound)! * 1000, digits: 0)) ms, its own WAL checkpoints "
                + "(count/ms held), background checkpoints, events pruned; the machine's CPUs in the minute (busy/steal, "
                + "% of all CPUs' time) and the cores guildd used."
        )
        print("")
        print(
            "| minute | requests | errors | failures | " + kinds.map(\.rawValue).joined(separator: " | ")
                + " | VmRSS | SQLite heap | fds | database | WAL | slow commits | writer checkpoints | background checkpoints | pruned "
                + "| CPU busy/steal | guildd cores |"
        )
        print("|---|---|---|---|" + kinds.map { _ in "---|" }.joined() + "---|---|---|---|---|---|---|---|---|---|---|")
        let writer = Self.writerMinutes(minutes)
        for (index, minute) in minutes.enumerated() {
            let errors = minute.errors.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ")
            let cells = kinds.map { kind in
                minute.latencies[kind] == nil ? "—" : "\(ms(minute.percentile(kind, 50)))/\(ms(minute.percentile(kind, 99)))"
            }
            print(
                "| \(index + 1) | \(Format.grouped(Double(minute.requests))) | \(errors.isEmpty ? "0" : errors) | \(minute.failures) | "
                    + cells.joined(separator: " | ")
                    + " | \(minute.rssBytes.map { mib.format(Double($0) / 1_048_576) } ?? "—") | "
                    + "\(minute.databaseHeapBytes.map { mib.format(Double($0) / 1_048_576) } ?? "—") | \(minute.descriptors.map(String.init) ?? "—") | "
                    + "\(minute.databaseBytes.map { mib.format(Double($0) / 1_048_576) } ?? "—") | \(minute.walBytes.map { mib.format(Double($0) / 1_048_576) } ?? "—") | "
                    + Self.writerCells(writer[index]) + Self.machineCells(minute.machine)
            )
        }
        print("")
        var failures: [String] = []
        let undocumented = recorder.undocumentedErrors
        if undocumented.count > 0 {
            failures.append("\(undocumented.count) errors the protocol does not document (first: \(undocumented.first ?? "?"))")
        }
        let failed = minutes.reduce(0) { $0 + $1.failures }
        if failed > 0 { failures.append("\(failed) calls lost their connection or process") }
        guard minutes.count >= 3 else {
            print("- per-minute targets: need 3 whole minutes (got \(minutes.count)); not checked")
            return failures
        }
        let second = minutes[1]
        var worst: [String] = []
        for kind in kinds where kind.isDaemons {
            let reference = second.percentile(kind, 99)
            let ratio = minutes.dropFirst(2).map { $0.percentile(kind, 99) / reference }.filter(\.isFinite).max() ?? 0
            worst.append("\(kind.rawValue) \(Format.decimal(ratio, digits: 2))x")
            if ratio > Self.flat { failures.append("\(kind.rawValue) p99 reached \(Format.decimal(ratio, digits: 2))x minute 2's") }
        }
        let rssRatio = minutes.dropFirst(2).compactMap(\.rssBytes).map { Double($0) / Double(second.rssBytes ?? 1) }.max() ?? 0
        if rssRatio > Self.flat { failures.append("VmRSS reached \(Format.decimal(rssRatio, digits: 2))x minute 2's") }
        print(
            "- highest p99 of minutes 3-\(minutes.count) against minute 2 (target ≤ \(Format.decimal(Self.flat, digits: 1))x): "
                + worst.joined(separator: ", ") + "; VmRSS \(Format.decimal(rssRatio, digits: 2))x"
        )
        // SQLite's page caches fill up to their bound as the run reads more of a growing database: the rest of
        // VmRSS is what would show a leak.
        func rest(_ minute: SoakRecorder.Minute) -> Double? {
            guard let rss = minute.rssBytes, let heap = minute.databaseHeapBytes else { return nil }
            return Double(rss - heap)
        }
        if let secondRest = rest(second), let restMax = minutes.dropFirst(2).compactMap(rest).max() {
            print(
                "- VmRSS less SQLite's heap: \(mib.format(secondRest / 1_048_576)) in minute 2, at most \(mib.format(restMax / 1_048_576)) "
                    + "after (\(Format.decimal(restMax / secondRest, digits: 2))x)"
            )
        }
        // How many samples each minute's p99 stands on: with fewer than a hundred it is the minute's slowest one.
        let counts = kinds.map { kind in
            let median = Stats.median(minutes.map { Double($0.latencies[kind]?.count ?? 0) })
            return "\(kind.rawValue) \(Format.grouped(median.rounded()))"
        }
        print("- samples a minute (median): " + counts.joined(separator: ", "))
        // How loaded the machine was: a minute's p99 on a machine near its CPUs' limit is mostly queueing.
        let machine = minutes.compactMap(\.machine)
        if !machine.isEmpty {
            func percent(_ value: Double) -> String { Format.decimal(value * 100, digits: 1) + "%" }
            let busy = machine.map(\.busy)
            let steal = machine.map(\.steal)
            let cores = machine.compactMap(\.processCores)
            print(
                "- the machine's CPUs per minute: busy median \(percent(Stats.median(busy))), highest \(percent(busy.max()!)); "
                    + "steal median \(percent(Stats.median(steal))), highest \(percent(steal.max()!))"
                    + (cores.isEmpty ? "" : "; guildd median \(Format.decimal(Stats.median(cores), digits: 2)) cores")
            )
        }
        Self.reportSlowMinutes(minutes, kinds: kinds.filter(\.isDaemons), writer: writer)
        return failures
    }

    /// Each minute's writer figures: the differences of guildd's running totals from the minute before.
    static func writerMinutes(_ minutes: [SoakRecorder.Minute]) -> [SoakDaemonCounters?] {
        minutes.indices.map { index in
            minutes[index].counters.map { $0.since(index > 0 ? minutes[index - 1].counters : nil) }
        }
    }

    /// The writer's cells of a minute's row.
    static func writerCells(_ writer: SoakDaemonCounters?) -> String {
        guard let writer else { return "— | — | — | — |" }
        let held = Format.decimal(writer.writerCheckpointSeconds * 1000, digits: 0)
        return "\(Format.grouped(writer.slowCommits)) | \(Format.grouped(writer.writerCheckpoints))/\(held) | "
            + "\(Format.grouped(writer.passiveCheckpoints)) | \(Format.grouped(writer.prunedEvents)) |"
    }

    /// The machine's cells of a minute's row.
    static func machineCells(_ machine: MachineCPU.Share?) -> String {
        guard let machine else { return " — | — |" }
        func percent(_ value: Double) -> String { Format.decimal(value * 100, digits: 0) + "%" }
        return " \(percent(machine.busy))/\(percent(machine.steal)) | "
            + "\(machine.processCores.map { Format.decimal($0, digits: 2) } ?? "—") |"
    }

    /// The floor's own minute-to-minute spread, and each minute where one of guildd's p99s passed the target
    /// beside what the floor and guildd's writer did in it: which slow minutes the machine explains, and which the
    /// daemon's own work.
    static func reportSlowMinutes(_ minutes: [SoakRecorder.Minute], kinds: [SoakRecorder.Kind], writer: [SoakDaemonCounters?]) {
        let second = minutes[1]
        let floorReference = second.percentile(.floor, 99)
        let floorRatios = minutes.map { $0.percentile(.floor, 99) / floorReference }
        let later = floorRatios.dropFirst(2).filter(\.isFinite)
        if let highest = later.max() {
            print(
                "- the floor's p99 against minute 2: median \(Format.decimal(Stats.median(Array(later)), digits: 2))x, highest "
                    + "\(Format.decimal(highest, digits: 2))x; minutes where it passed \(Format.decimal(Self.flat, digits: 1))x: "
                    + "\(later.filter { $0 > Self.flat }.count) of \(later.count)"
            )
        }
        var slow: [String] = []
        for index in minutes.indices.dropFirst(2) {
            let over = kinds.compactMap { kind -> String? in
                let ratio = minutes[index].percentile(kind, 99) / second.percentile(kind, 99)
                return ratio.isFinite && ratio > Self.flat ? "\(kind.rawValue) \(Format.decimal(ratio, digits: 2))x" : nil
            }
            guard !over.isEmpty else { continue }
            var entry = "\(index + 1) (" + over.joined(separator: ", ")
            if floorRatios[index].isFinite { entry += "; floor \(Format.decimal(floorRatios[index], digits: 2))x" }
            if let machine = minutes[index].machine { entry += "; \(machine.summary)" }
            if let minute = writer[index] {
                entry +=
                    "; \(Format.grouped(minute.slowCommits)) slow commits, "
                    + "\(Format.grouped(minute.writerCheckpoints)) writer checkpoints, \(Format.grouped(minute.prunedEvents)) pruned"
            }
            slow.append(entry + ")")
        }
        let listed = slow.isEmpty ? "none" : slow.joined(separator: "; ")
        print("- minutes with a p99 over \(Format.decimal(Self.flat, digits: 1))x minute 2's: \(listed)")
    }

    /// The event log's last seq (blocking): what a subscription from the head is told.
    static func head(_ socketPath: String) throws -> Int64 {
        let admin = try LineConnection(path: socketPath, timeout: 60)
        defer { admin.close() }
        return try admin.call(EventMethods.Subscribe.self, .init(all: true)).seq
    }

    /// Blocking: what SQLite holds on guildd's heap (`database.heapBytes` of `system.status`, nil when the daemon
    /// does not say), and guildd's running totals from `system.metrics`.
    static func daemonFigures(_ socketPath: String) throws -> (heap: Int?, counters: SoakDaemonCounters) {
        let admin = try LineConnection(path: socketPath, timeout: 60)
        defer { admin.close() }
        let heap = try admin.call(SystemMethods.Status.self, NoParams()).database?.heapBytes.map { Int($0) }
        return (heap, SoakDaemonCounters(metrics: try admin.call(SystemMethods.Metrics.self, NoParams())))
    }

    /// The same-run floor (blocking, until `stop`): one durable single-row UPDATE in the bench's own SQLite
    /// database every 20 ms, timed, recorded as `floor`.
    static func floor(_ baseline: SQLiteBaseline, stop: StopFlag, recorder: SoakRecorder) throws {
        var count = 0
        while !stop.isSet {
            let started = monotonicNanos()
            try baseline.update(count)
            recorder.record(.floor, seconds: Double(monotonicNanos() - started) / 1e9, error: nil)
            count += 1
            usleep(20_000)
        }
    }

    static func groupID(_ index: Int) -> String {
        "soak\(index % Self.groups)"
    }

    /// Blocking: the pseudo users (user i in group i mod 10) and the groups, each owned by its first member.
    static func prepare(_ socketPath: String, users count: Int) throws -> [PseudoUser] {
        let users = try IMSetup.registerPseudoUsers(socketPath, count: count, namePrefix: "soak")
        let admin = try LineConnection(path: socketPath, timeout: 60)
        defer { admin.close() }
        for group in 0..<Self.groups {
            let members = users.indices.filter { $0 % Self.groups == group }.map { users[$0].userID }
            guard let owner = members.first else { continue }
            _ = try admin.call(
                GroupMethods.Create.self,
                .init(
                    name: "soak \(group)",
                    groupID: Self.groupID(group),
                    type: .work,
                    members: members.dropFirst().map { .init(userID: $0) },
                    owner: owner
                )
            )
        }
        return users
    }
}
