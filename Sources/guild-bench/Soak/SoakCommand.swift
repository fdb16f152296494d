import ArgumentParser
import Foundation
import Glibc
import GuildHarness
import GuildProtocol

/// `guild-bench soak`: mixed reads, writes and subscriptions from many connections for minutes, with guildd
/// killed (SIGKILL) every 30-60 s and restarted on the same database. Afterwards: every acknowledged write
/// is present exactly once, the event log replays gap-free with no duplicate and every subscriber saw each
/// `seq` once, `system.check` passes, and VmRSS sampled 20 s after each (re)start under the same load stays
/// flat. Not part of the benchmark run; exit status 1 when a check fails.
struct SoakCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "soak",
        abstract: "Minutes of mixed load with kill -9 and restarts; checks that nothing acknowledged is lost or doubled."
    )

    /// `--guildd`, `--work-dir` and `--keep` are the main command's options.
    @ParentCommand var bench: GuildBench

    @Option(help: "How long to run.")
    var minutes: Double = 10

    @Option(help: "Connections: a tenth subscribe to every event, 3/10 read, the rest write.")
    var connections: Int = 200

    @Option(help: "Shortest time between two kills, in seconds.")
    var killMinSeconds: Double = 30

    @Option(help: "Longest time between two kills, in seconds.")
    var killMaxSeconds: Double = 60

    @Option(help: "Pause after each call of a writer or reader, in seconds.")
    var pace: Double = 0.25

    @Option(help: "Extra guildd arguments (repeatable).")
    var daemonArgument: [String] = []

    static let groups = 10
    /// When after a (re)start VmRSS is sampled.
    static let sampleAfter = 20.0

    func validate() throws {
        guard self.minutes > 0 else { throw ValidationError("--minutes must be positive") }
        guard self.connections >= 10 else { throw ValidationError("--connections must be at least 10") }
        guard self.killMinSeconds > Self.sampleAfter, self.killMaxSeconds >= self.killMinSeconds else {
            throw ValidationError("need \(Int(Self.sampleAfter)) < --kill-min-seconds ≤ --kill-max-seconds")
        }
    }

    func run() async throws {
        let context = try ModeOptions.makeContext(self.bench)
        try raiseFileLimit(atLeast: self.connections + 256)
        var daemon = try await launchOwnDaemon(context, name: "soak", extraArguments: self.daemonArgument)
        let socketPath = daemon.socketPath
        let subscribers = max(2, self.connections / 10)
        let readers = self.connections * 3 / 10
        let writers = self.connections - subscribers - readers
        let users = try await onThread("soak-setup") { try Self.prepare(socketPath, users: writers + readers) }
        Log.progress(
            "soak: \(Format.decimal(self.minutes, digits: 1)) min, \(writers) writers, \(readers) readers, \(subscribers) subscribers; "
                + "kill -9 every \(Int(self.killMinSeconds))-\(Int(self.killMaxSeconds)) s"
        )

        let stop = StopFlag()
        var roles: [SoakWorker.Role] = []
        for index in 0..<writers { roles.append(.writer(user: users[index], groupID: Self.groupID(index))) }
        for index in 0..<readers { roles.append(.reader(user: users[writers + index], groupID: Self.groupID(writers + index))) }
        for _ in 0..<subscribers { roles.append(.subscriber) }
        let pace = self.pace
        let workers = roles.enumerated().map { index, role in
            let worker = SoakWorker(index: index, role: role, socketPath: socketPath, stop: stop, pace: pace)
            return Task.detached { try await onThread("soak-\(index)") { worker.run() } }
        }

        let started = monotonicNanos()
        let deadline = started + UInt64(self.minutes * 60e9)
        var samples: [Double] = []
        var restartSeconds: [Double] = []
        var kills = 0
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
            kill(daemon.pid, SIGKILL)
            await daemon.stop(timeout: 10)
            kills += 1
            unlink(socketPath)
            let restartStarted = monotonicNanos()
            daemon = try await launchOwnDaemon(context, name: "soak", extraArguments: self.daemonArgument)
            restartSeconds.append(Double(monotonicNanos() - restartStarted) / 1e9)
            Log.progress("  kill -9 #\(kills); restarted in \(Format.decimal(restartSeconds.last!, digits: 2)) s")
        }
        if monotonicNanos() < deadline { try await Task.sleep(for: .nanoseconds(deadline - monotonicNanos())) }
        stop.set()
        var tallies: [SoakWorker.Tally] = []
        for worker in workers { tallies.append((try? await worker.value) ?? SoakWorker.Tally()) }
        let seconds = Double(monotonicNanos() - started) / 1e9

        Log.progress("  load stopped; verifying")
        let acknowledged = tallies.flatMap(\.acknowledgedTexts)
        let unknown = tallies.flatMap(\.unknownTexts)
        let createdUsers = tallies.flatMap(\.acknowledgedUsers)
        let verification = try await onThread("soak-verify") {
            try SoakVerification.run(socketPath, acknowledged: acknowledged, unknown: unknown, users: createdUsers)
        }
        let memory = try? daemon.memory()
        await daemon.stop()
        reportDaemonLogProblems(daemon, context)

        let subscriberTallies = tallies.filter { $0.events > 0 || $0.resubscriptions > 0 }
        let gaps = subscriberTallies.reduce(0) { $0 + $1.gaps }
        let duplicates = subscriberTallies.reduce(0) { $0 + $1.duplicates }
        let behind = subscriberTallies.filter { $0.lastSeq != verification.head }.count
        let flat = (samples.max() ?? 0) <= 1.5 * (samples.first ?? .infinity)
        let errors = tallies.reduce(0) { $0 + $1.errors }
        var failures: [String] = verification.failures
        if gaps > 0 || duplicates > 0 { failures.append("subscribers saw \(gaps) gaps and \(duplicates) duplicates") }
        if behind > 0 { failures.append("\(behind) subscribers ended before the last seq \(verification.head)") }
        if !flat { failures.append("VmRSS not flat: \(samples.map { Format.decimal($0, digits: 1) })") }

        let mib = MeasurementUnit.mebibytes
        print("## guild-bench soak")
        print(
            "- \(Format.decimal(seconds / 60, digits: 1)) min, \(self.connections) connections (\(writers) writers, \(readers) readers, "
                + "\(subscribers) subscribers), \(kills) kill -9 + restarts (restart to ready: "
                + "\(restartSeconds.isEmpty ? "—" : "\(Format.decimal(Stats.median(restartSeconds), digits: 2)) s median, \(Format.decimal(restartSeconds.max()!, digits: 2)) s max"))"
        )
        print(
            "- writes: \(Format.grouped(Double(acknowledged.count))) messages and \(Format.grouped(Double(createdUsers.count))) pseudo users acknowledged, "
                + "\(unknown.count) messages in flight at a kill (\(verification.unknownCommitted) of them committed); "
                + "reads: \(Format.grouped(Double(tallies.reduce(0) { $0 + $1.reads }))); "
                + "reconnects \(Format.grouped(Double(tallies.reduce(0) { $0 + $1.reconnects }))); call errors \(errors)"
                + (tallies.compactMap(\.firstError).first.map { " (first: \($0.prefix(200)))" } ?? "")
        )
        print(
            "- acknowledged messages: \(verification.missing) missing, \(verification.duplicated) duplicated; "
                + "pseudo users missing: \(verification.usersMissing)"
        )
        print(
            "- events: head seq \(Format.grouped(Double(verification.head))), replay from 0: \(verification.replayGaps) gaps, "
                + "\(verification.replayDuplicates) duplicates; subscribers: \(Format.grouped(Double(subscriberTallies.reduce(0) { $0 + $1.events }))) "
                + "events received, \(subscriberTallies.reduce(0) { $0 + $1.resubscriptions }) resubscriptions with since, \(gaps) gaps, "
                + "\(duplicates) duplicates" + (subscriberTallies.compactMap(\.firstGap).first.map { " (first gap: \($0))" } ?? "")
        )
        print("- system.check: \(verification.check)")
        print(
            "- VmRSS \(Int(Self.sampleAfter)) s after each (re)start: \(samples.map { mib.format($0) }.joined(separator: ", ")) "
                + "(\(flat ? "flat" : "NOT flat"): max ≤ 1.5 × first); VmHWM of the last process \(memory.map { mib.format($0.hwmMiB) } ?? "—")"
        )
        if failures.isEmpty {
            print("- result: PASS")
        } else {
            print("- result: **FAIL**: " + failures.joined(separator: "; "))
            throw ExitCode(1)
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
