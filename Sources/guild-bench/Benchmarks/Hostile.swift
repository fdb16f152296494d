import Foundation
import Glibc
import GuildHarness
import GuildProtocol

/// 200 hostile connections of every kind protocol/liveness.md bounds, from uid 65534, while a
/// well-behaved user (an ordinary pseudo user's session, on a root peer's connection) sends pings, reads and
/// group messages one at a time and times each; the same user's latency with no hostile load, measured
/// first on the same daemon, is the baseline.
///
/// The hostile peers are `guild-bench hostile-client` processes under `setpriv --reuid 65534`, one per kind
/// (see ``HostileClient/Kind``): 10 connections holding the most subscriptions to the group the user writes
/// to and never reading, 16 sending 1,000-call `rpc.discover` batches and never reading, 20 subscribing with
/// 1,000,000 groupIDs, 30 holding a 15 MiB unterminated line, 60 trickling a request at 1 byte/s and 64
/// idling unauthenticated; beside them one more peer tries to take every connection slot (up to 4,200).
/// guildd's VmRSS is sampled every 100 ms; past `memoryCap` the hostile peers are stopped early (so that a
/// daemon without bounds cannot take the machine down), the measurement ends there, and the figure fails
/// its target.
struct Hostile: Benchmark {
    let name = "hostile"
    let summary = "guildd peak RSS and a well-behaved user's p99 under 200 hostile connections from uid 65534"

    static let groupID = "hostile"
    static let uid = 65534
    /// Connections per kind (200 in all), and the slot grabber's ceiling. The kinds that subscribe start first
    /// and the others once they hold their sessions (at most 10 s later).
    static let plan: [(kind: HostileClient.Kind, count: Int)] = [
        (.subscribeNoRead, 10),
        (.batchNoRead, 16),
        (.hugeGroupIDs, 20),
        (.unterminated, 30),
        (.trickle, 60),
        (.idle, 64),
    ]
    static let slotGrabCeiling = 4_200
    /// VmRSS at which the hostile peers are stopped early.
    static let memoryCap = 2048.0

    func run(_ context: BenchContext) async throws -> [Measurement] {
        let baselineSeconds = context.quick ? 3.0 : 10.0
        let hostileSeconds = context.quick ? 12.0 : 40.0
        let rampSeconds = 3.0
        try raiseFileLimit(atLeast: Self.slotGrabCeiling + 512)
        signal(SIGPIPE, SIG_IGN)
        // uid 65534 must reach the socket: the work directory is searchable, the socket world-writable.
        chmod(context.workDir, 0o711)
        let daemon = try await launchOwnDaemon(context, name: "hostile", extraArguments: ["--socket-mode", "0666"])
        var children: [HostileChild] = []
        do {
            let socketPath = daemon.socketPath
            let users = try await onThread("hostile-setup") { try Self.prepare(socketPath) }
            let user = users[0]
            let hostileTokens = users.dropFirst().map(\.accessToken)

            context.progress("  well-behaved user alone for \(Format.decimal(baselineSeconds, digits: 0)) s")
            let wellBehaved = WellBehavedUser(socketPath: socketPath, user: user, groupID: Self.groupID)
            defer { wellBehaved.close() }
            let baseline = try await onThread("well-behaved") { try wellBehaved.run(seconds: baselineSeconds, stop: nil) }
            let before = try daemon.memory()
            context.progress("  alone: \(baseline.describe()); guildd VmRSS \(MeasurementUnit.mebibytes.format(before.rssMiB))")

            let childSeconds = rampSeconds + hostileSeconds + 1
            // The subscribing kinds first, so that they are subscribed before the others load the daemon.
            let order = Self.plan.enumerated().sorted { ($0.element.kind.subscribes ? 0 : 1) < ($1.element.kind.subscribes ? 0 : 1) }
            for (index, (kind, count)) in order {
                if !kind.subscribes, children.last?.kind.subscribes ?? false {
                    // The subscribers hold their sessions before the rest of the load starts.
                    let ready = await HostileChild.waitUntilReady(children, timeout: 10)
                    context.progress("  subscribing peers \(ready ? "authenticated" : "NOT all authenticated after 10 s"); starting the others")
                }
                let tokens = kind == .subscribeNoRead ? Array(hostileTokens.prefix(10)) : Array(hostileTokens.dropFirst(10))
                children.append(
                    try await HostileChild.spawn(
                        context,
                        socket: socketPath,
                        kind: kind,
                        count: count,
                        seconds: childSeconds + (kind.subscribes ? 10 : 0),
                        tokens: tokens,
                        index: index
                    )
                )
            }
            children.append(
                try await HostileChild.spawn(
                    context,
                    socket: socketPath,
                    kind: .slotGrab,
                    count: Self.slotGrabCeiling,
                    seconds: childSeconds,
                    tokens: [],
                    index: Self.plan.count
                )
            )
            context.progress(
                "  \(Self.plan.map(\.count).reduce(0, +)) hostile connections as uid \(Self.uid) "
                    + "(\(Self.plan.map { "\($0.count) \($0.kind.rawValue)" }.joined(separator: ", "))) "
                    + "+ a slot grabber (up to \(Format.grouped(Double(Self.slotGrabCeiling)))); "
                    + "\(Format.decimal(rampSeconds, digits: 0)) s ramp, then \(Format.decimal(hostileSeconds, digits: 0)) s measured"
            )

            let stop = StopFlag()
            let sampler = MemorySampler(pid: daemon.pid, cap: Self.memoryCap)
            let childPIDs = children.map(\.process.pid)
            let sampling = Task.detached {
                await sampler.run(stop: stop) {
                    // Over the cap: end the hostile load (the peers print their summaries on SIGTERM) and the
                    // measurement, so that the user's figures cover only time under load.
                    for child in childPIDs { kill(child, SIGTERM) }
                    stop.set()
                }
            }
            let freshProbes = Task.detached { await FreshConnectionProbe.run(socketPath: socketPath, stop: stop) }
            try await Task.sleep(for: .seconds(rampSeconds))
            let loaded = try await onThread("well-behaved") {
                defer { stop.set() }
                return try wellBehaved.run(seconds: hostileSeconds, stop: stop)
            }
            stop.set()
            let peak = await sampling.value
            let probes = await freshProbes.value
            context.progress("  under load: \(loaded.describe())")
            context.progress("  fresh root connections during the load: \(probes.describe())")

            // The measurement is over: the peers stop now and print their summaries.
            for child in children { child.process.signal(SIGTERM) }
            var summaries: [String] = []
            for child in children {
                let summary = await child.finish(timeout: 15)
                context.progress("  \(child.kind.rawValue): \(summary)")
                summaries.append("\(child.kind.rawValue): \(summary)")
            }
            children = []
            let alive = daemon.process.isRunning
            let after = alive ? try? daemon.memory() : nil
            let pingAfter = alive ? (try? await onThread("ping-after") { try RawSocket.ping(socketPath, timeout: 5) }) != nil : false
            let stopStarted = monotonicNanos()
            await daemon.stop()
            let stopSeconds = Double(monotonicNanos() - stopStarted) / 1e9
            reportDaemonLogProblems(daemon, context)
            context.progress(
                "  after: guildd \(alive ? "running" : "DEAD"), fresh ping \(pingAfter ? "ok" : "FAILED"), "
                    + "SIGTERM exit after \(Format.decimal(stopSeconds, digits: 1)) s"
            )

            let hwm = max(after?.hwmMiB ?? 0, peak.hwmMiB)
            let aborted =
                peak.capHitAfter.map {
                    "; hostile load STOPPED after \(Format.decimal($0, digits: 1)) s: VmRSS passed \(Format.grouped(Self.memoryCap)) MiB"
                } ?? ""
            return [
                Measurement(
                    benchmark: self.name,
                    figure: "guildd peak RSS (VmHWM), 200 hostile peers",
                    value: hwm,
                    unit: .mebibytes,
                    baseline: before.rssMiB,
                    baselineName: "VmRSS before",
                    target: .value(.below, 300),
                    note: "max sampled VmRSS \(MeasurementUnit.mebibytes.format(peak.maxRSSMiB))\(aborted); "
                        + "after: guildd \(alive ? "alive" : "DEAD"), fresh ping \(pingAfter ? "ok" : "failed"), "
                        + "SIGTERM exit \(Format.decimal(stopSeconds, digits: 1)) s\(stopSeconds >= 5 ? " (ignored: SIGKILL)" : "")"
                ),
                Measurement(
                    benchmark: self.name,
                    figure: "well-behaved user p99 under hostile load",
                    value: loaded.percentile(99),
                    unit: .milliseconds,
                    baseline: baseline.percentile(99),
                    baselineName: "p99 alone",
                    target: .value(.below, 50),
                    note: loaded.describe() + "; fresh root connections: " + probes.describe()
                ),
                Measurement(
                    benchmark: self.name,
                    figure: "well-behaved user p50 under hostile load",
                    value: loaded.percentile(50),
                    unit: .milliseconds,
                    baseline: baseline.percentile(50),
                    baselineName: "p50 alone",
                    note: "hostile peers: " + summaries.joined(separator: " / ")
                ),
            ]
        } catch {
            for child in children { _ = await child.finish(timeout: 0) }
            await daemon.stop()
            throw error
        }
    }

    /// Blocking: the well-behaved user, 30 pseudo users for the hostile subscribers (10 for subscribe-no-read,
    /// 20 for huge-group-ids), and the group all of them belong to, owned by the well-behaved user.
    static func prepare(_ socketPath: String) throws -> [PseudoUser] {
        let users = try IMSetup.registerPseudoUsers(socketPath, count: 31, namePrefix: "hostile", connections: 4, batchSize: 31)
        let admin = try LineConnection(path: socketPath, timeout: 30)
        defer { admin.close() }
        _ = try admin.call(
            GroupMethods.Create.self,
            .init(
                name: "hostile",
                groupID: Self.groupID,
                type: .work,
                members: users.dropFirst().map { GroupMethods.MemberSpec(userID: $0.userID) },
                owner: users[0].userID
            )
        )
        return users
    }
}

/// One `hostile-client` process under `setpriv`, with its output file.
struct HostileChild: Sendable {
    let kind: HostileClient.Kind
    let process: ChildProcess
    let outputPath: String
    let logPath: String

    static func spawn(
        _ context: BenchContext,
        socket: String,
        kind: HostileClient.Kind,
        count: Int,
        seconds: Double,
        tokens: [String],
        index: Int
    ) async throws -> HostileChild {
        let child = try await UnprivilegedChild.spawn(
            context,
            name: "hostile-\(index)",
            subcommand: "hostile-client",
            arguments: [
                "--socket", socket, "--kind", kind.rawValue, "--count", "\(count)", "--seconds", "\(seconds)",
                "--tokens", tokens.joined(separator: ","), "--group-id", Hostile.groupID,
            ]
        )
        return HostileChild(kind: kind, process: child.process, outputPath: child.outputPath, logPath: child.logPath)
    }

    /// Waits up to `timeout` seconds until every child's log says `ready`; whether they all did.
    static func waitUntilReady(_ children: [HostileChild], timeout: Double) async -> Bool {
        let deadline = monotonicNanos() + UInt64(timeout * 1e9)
        while monotonicNanos() < deadline {
            let ready = children.allSatisfy { child in
                (try? String(contentsOfFile: child.logPath, encoding: .utf8))?.contains("ready") ?? false
            }
            if ready { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return false
    }

    /// Waits up to `timeout` for the process to end by itself (SIGKILL after), then its summary as text.
    func finish(timeout: Double) async -> String {
        await ChildProcesses.shared.stopKilling(self.process, after: timeout)
        guard let data = FileManager.default.contents(atPath: self.outputPath),
            let summary = try? JSONDecoder().decode(HostileClient.Summary.self, from: data)
        else {
            return "no summary (exit status \(self.process.endedStatus.map(String.init) ?? "unknown"))"
        }
        var parts = ["\(summary.opened) opened"]
        if summary.connectFailures > 0 { parts.append("\(summary.connectFailures) connects failed (\(summary.firstConnectError ?? "?"))") }
        parts.append("\(summary.closedByDaemon) closed by guildd")
        parts.append("\(summary.heldAtEnd) held at the end")
        if summary.completed > 0 { parts.append("\(summary.completed) units done") }
        parts.append("\(Format.grouped(Double(summary.bytesSent))) bytes sent")
        if !summary.reasons.isEmpty {
            parts.append("errors " + summary.reasons.sorted { $0.key < $1.key }.map { "\($0.key)×\($0.value)" }.joined(separator: " "))
        }
        return parts.joined(separator: ", ")
    }
}

extension ChildProcesses {
    /// Waits up to `timeout` seconds for `process` to exit by itself, then SIGKILLs it.
    func stopKilling(_ process: ChildProcess, after timeout: Double) async {
        if await process.wait(timeout: timeout) == nil {
            process.signal(SIGKILL)
            await process.wait()
        }
        await self.stop(process, timeout: 0)
    }
}

/// Samples a process's VmRSS every 100 ms until told to stop; calls `overCap` once when VmRSS passes `cap` MiB.
struct MemorySampler: Sendable {
    struct Peak: Sendable {
        var maxRSSMiB = 0.0
        var hwmMiB = 0.0
        /// Seconds after the start when VmRSS passed the cap.
        var capHitAfter: Double?
    }

    let pid: Int32
    let cap: Double

    func run(stop: StopFlag, overCap: @Sendable () -> Void) async -> Peak {
        var peak = Peak()
        let started = monotonicNanos()
        while !stop.isSet {
            if let memory = try? MemoryStatus.read(pid: self.pid) {
                peak.maxRSSMiB = max(peak.maxRSSMiB, memory.rssMiB)
                peak.hwmMiB = max(peak.hwmMiB, memory.hwmMiB)
                if memory.rssMiB > self.cap, peak.capHitAfter == nil {
                    peak.capHitAfter = Double(monotonicNanos() - started) / 1e9
                    overCap()
                }
            }
            try? await Task.sleep(for: .milliseconds(100))
        }
        return peak
    }
}

/// Once a second, a fresh connection from this (root) process and one `system.ping` within 2 s: root must always
/// get a slot and an answer.
enum FreshConnectionProbe {
    struct Tally: Sendable {
        var ok = 0
        var failed = 0
        var firstFailure: String?
        var worst = 0.0

        func describe() -> String {
            "\(self.ok) ok, \(self.failed) failed (worst \(MeasurementUnit.milliseconds.format(self.worst)))"
                + (self.firstFailure.map { "; first failure: \($0)" } ?? "")
        }
    }

    static func run(socketPath: String, stop: StopFlag) async -> Tally {
        var tally = Tally()
        while !stop.isSet {
            let started = monotonicNanos()
            do {
                _ = try await onThread("fresh-probe") { try RawSocket.ping(socketPath, timeout: 2) }
                tally.ok += 1
            } catch {
                tally.failed += 1
                if tally.firstFailure == nil { tally.firstFailure = "\(error)" }
            }
            tally.worst = max(tally.worst, Double(monotonicNanos() - started) / 1e6)
            try? await Task.sleep(for: .seconds(1))
        }
        return tally
    }
}
