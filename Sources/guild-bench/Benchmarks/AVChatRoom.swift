import Foundation
import Glibc
import GuildHarness
import GuildProtocol
import Synchronization

/// An AVChatRoom group (join freely, no member limit, members get `memberEnter`/`memberLeave`): 20,000
/// members join and then leave, each by its own user session, paced open-loop at 2,000 calls/s, while 500
/// members of the group watch it with `events.subscribe {groupIDs: [group]}` (2,000 and 50 with `--quick`).
///
/// Sessions: every join and quit is made by the joining user's own session. A connection binds one session
/// at a time, and 20,000 connections would exceed guildd's `--max-connections`, so the 20,000 users are
/// registered beforehand with batched `user.registerPseudo` (their tokens kept) and each call goes out on one
/// of 128 writer connections as a two-entry JSON-RPC batch `[session.authenticate(user's token), group.join]`
/// (or `group.quit`). A batch holding a session-changing method runs its entries in order, and guildd runs
/// such a batch before anything after it on that connection starts, so each join runs as its user and the
/// cost of binding the session is part of what is measured: it is what a gateway multiplexing many users over
/// few connections pays. (Two pipelined lines would do the same: each request acts as the session bound when
/// it arrived, tested in SessionOrderingTests; this benchmark found the bug that made that untrue.)
///
/// Because those batches run one after another on a connection, the number of writer connections caps the
/// calls in flight; 128 (about 16 calls/s each) keeps that cap from being what is measured: with 32, calls
/// queued behind each other on their connection even when guildd had CPU to spare (about 1,000 joins/s with
/// 50 subscribers, against about 1,900/s with 128).
///
/// Pacing: call k (user k) is due at start + k / 2,000 s on writer k mod 128; one pacer thread sends what is
/// due (1 ms granularity) without waiting for replies, and reads replies as they come. At most 128 calls may
/// be unanswered on a writer (guildd refuses beyond 256 in flight); a writer at that bound holds the pacer
/// back, which shows as lag behind the schedule. Sustained rate = the median of the completions counted in
/// each whole second between the first and the last reply (the offered rate when guildd keeps up; its
/// capacity when it does not); the overall rate (calls − 1) / (first → last reply) is in the note.
///
/// Capacity: with the offer at exactly 2,000/s, completions can only match it; so the same join and quit then
/// run, still watched, offered at 3,000/s, and the joins completed per second there are guildd's capacity: the
/// row that carries the ≥ 2,000/s target.
///
/// Diagnostic: after the watched phases the subscribers disconnect and the 20,000 join once more, so the
/// note can tell the cost of the write path from that of the fan-out (guildd publishes a commit's events to
/// every subscription before the next group commit starts).
///
/// Subscribers: one connection each, read by one `poll` thread that scans lines without decoding them (as in
/// `fan-out`). Every join and every quit is one notification to each subscriber. A subscriber that falls more
/// than `--subscription-queue` events behind gets `events.ended` (LAGGED); the reader then subscribes again
/// with `since` = its `lastSeq`, as a real client would, and those replayed events count with their (late)
/// latency. Latency = receive time − the event's `time` (commit-time clock, whole ms).
struct AVChatRoom: Benchmark {
    let name = "avchatroom"
    let summary =
        "AVChatRoom: 20,000 members join then leave (own sessions, paced 2,000/s over 128 connections) while 500 subscribed members watch"

    static let groupID = "avchat"
    static let offeredRate = 2_000.0
    /// The rate offered in the capacity phases: above the target, so what completes is guildd's capacity.
    static let capacityRate = 3_000.0
    static let writers = 128
    static let maximumOutstanding = 128

    struct Plan: Sendable {
        var members: Int
        var subscribers: Int
        static func make(quick: Bool) -> Plan {
            quick ? Plan(members: 2_000, subscribers: 50) : Plan(members: 20_000, subscribers: 500)
        }
    }

    struct Setup: Sendable {
        var subscribers: [LineConnection]
        var writers: [LineConnection]
        var users: [PseudoUser]

        func closeAll() {
            for connection in self.subscribers + self.writers { connection.close() }
        }
    }

    enum Phase: String, Sendable {
        case join, quit

        var kind: String { self == .join ? "memberEnter" : "memberLeave" }
    }

    func run(_ context: BenchContext) async throws -> [Measurement] {
        let plan = Plan.make(quick: context.quick)
        try raiseFileLimit(atLeast: plan.subscribers + Self.writers + 256)
        let daemon = try await launchOwnDaemon(context, name: "avchat")
        var setup: Setup?
        do {
            context.progress(
                "  registering \(plan.subscribers) subscribers (joining and subscribing) and \(Format.grouped(Double(plan.members))) members"
            )
            let started = monotonicNanos()
            let socketPath = daemon.socketPath
            let ready = try await onThread("avchatroom-setup") { try Self.prepare(socketPath, plan: plan) }
            setup = ready
            context.progress(
                "  set up in \(Format.decimal(Double(monotonicNanos() - started) / 1e9, digits: 1)) s; guildd VmRSS "
                    + MeasurementUnit.mebibytes.format(try daemon.memory().rssMiB)
            )

            var results: [PhaseResult] = []
            for phase in [Phase.join, .quit] {
                let result = try await Self.runPhase(phase, ready, plan: plan, daemon: daemon)
                results.append(result)
                context.progress("  \(phase.rawValue): " + result.describe())
            }
            // Capacity: the same join and quit, still watched, offered faster than the target.
            for phase in [Phase.join, .quit] {
                let result = try await Self.runPhase(phase, ready, plan: plan, daemon: daemon, rate: Self.capacityRate)
                results.append(result)
                context.progress("  \(phase.rawValue) at \(MeasurementUnit.perSecond.format(Self.capacityRate)) offered: " + result.describe())
            }
            let memory = try daemon.memory()
            let check = try await onThread("avchatroom-check") { try Self.check(socketPath, plan: plan) }
            // Diagnostic: the same joins again with nobody subscribed (the subscribers' connections closed).
            for connection in ready.subscribers { connection.close() }
            let unwatched = try await Self.runPhase(.join, ready, plan: plan, daemon: daemon, watched: false)
            context.progress("  join, nobody subscribed: " + unwatched.describe())
            results.append(unwatched)
            ready.closeAll()
            setup = nil
            await daemon.stop()
            reportDaemonLogProblems(daemon, context)
            return self.measurements(results, plan: plan, memory: memory, check: check)
        } catch {
            setup?.closeAll()
            await daemon.stop()
            throw error
        }
    }

    private func measurements(_ results: [PhaseResult], plan: Plan, memory: MemoryStatus, check: String) -> [Measurement] {
        let join = results[0]
        let quit = results[1]
        let capacityJoin = results[2]
        let capacityQuit = results[3]
        let unwatched = results[4]
        let watched = [join, quit]
        var latency = LatencyHistogram()
        for result in watched { latency.merge(result.tally.latency) }
        let notifications = watched.reduce(0) { $0 + $1.tally.notifications }
        let window = watched.reduce(0) { $0 + $1.notificationWindow }
        let ms = MeasurementUnit.milliseconds
        let rate = MeasurementUnit.perSecond
        let shape =
            "\(Format.grouped(Double(plan.members))) users, each its own session ([session.authenticate, call] batches), "
            + "\(Self.writers) connections, offered \(rate.format(Self.offeredRate)) open loop"
        return [
            Measurement(
                benchmark: self.name,
                figure: "offered rate (group.join, then group.quit)",
                value: Self.offeredRate,
                unit: .perSecond,
                target: nil,
                note: "sent at \(rate.format(join.sendRate)) (joins), \(rate.format(quit.sendRate)) (quits); " + shape
            ),
            Measurement(
                benchmark: self.name,
                figure: "sustained joins/s, offered 2,000/s",
                value: join.sustained,
                unit: .perSecond,
                target: nil,
                note: join.callNote() + "; \(join.cpu); diagnostic: the same joins with nobody subscribed: sustained "
                    + "\(rate.format(unwatched.sustained)), call latency p50 \(ms.format(Stats.percentile(sorted: unwatched.pace.latencies, 50))), "
                    + unwatched.cpu
            ),
            Measurement(
                benchmark: self.name,
                figure: "sustained leaves/s, offered 2,000/s",
                value: quit.sustained,
                unit: .perSecond,
                target: nil,
                note: quit.callNote() + "; \(quit.cpu)"
            ),
            Measurement(
                benchmark: self.name,
                figure: "capacity: joins/s, offered \(rate.format(Self.capacityRate)), \(Format.grouped(Double(plan.subscribers))) subscribers",
                value: capacityJoin.sustained,
                unit: .perSecond,
                target: .value(.atLeast, 2_000),
                note: capacityJoin.callNote() + "; \(capacityJoin.cpu); leaves at the same offered rate: sustained "
                    + "\(rate.format(capacityQuit.sustained)), LAGGED \(capacityJoin.tally.ended) + \(capacityQuit.tally.ended)"
            ),
            Measurement(
                benchmark: self.name,
                figure: "notifications/s, \(Format.grouped(Double(plan.subscribers))) subscribers",
                value: Double(notifications) / window,
                unit: .perSecond,
                target: nil,
                note: "\(Format.grouped(Double(notifications))) notifications (every join and leave × \(plan.subscribers)) in "
                    + "\(Format.decimal(window, digits: 1)) s, first call → last notification of each phase; joins "
                    + "\(rate.format(join.notificationRate)), leaves \(rate.format(quit.notificationRate)); "
                    + "LAGGED \(join.tally.ended) + \(quit.tally.ended) (resumed with since); guildd VmRSS "
                    + "\(MeasurementUnit.mebibytes.format(memory.rssMiB)), VmHWM \(MeasurementUnit.mebibytes.format(memory.hwmMiB)); \(check)"
            ),
            Measurement(
                benchmark: self.name,
                figure: "commit→delivery latency p50",
                value: latency.percentile(50),
                unit: .milliseconds,
                target: nil,
                note: "receive time − event time; joins p50 \(ms.format(join.tally.latency.percentile(50))), "
                    + "leaves p50 \(ms.format(quit.tally.latency.percentile(50)))"
            ),
            Measurement(
                benchmark: self.name,
                figure: "commit→delivery latency p99",
                value: latency.percentile(99),
                unit: .milliseconds,
                target: nil,
                note: "max \(ms.format(latency.maximum)); joins p99 \(ms.format(join.tally.latency.percentile(99))), "
                    + "leaves p99 \(ms.format(quit.tally.latency.percentile(99)))"
            ),
        ]
    }

    // MARK: - Setup

    /// Blocking: the group (owned by subscriber 0), the other subscribers joined, all subscribed; the members
    /// registered; the writer connections open.
    static func prepare(_ socketPath: String, plan: Plan) throws -> Setup {
        var subscribers: [LineConnection] = []
        var writers: [LineConnection] = []
        do {
            // One pseudo user per subscriber connection, registered on it (which binds it).
            for _ in 0..<plan.subscribers {
                subscribers.append(try LineConnection(path: socketPath, capacity: 64 * 1024))
            }
            let subscriberIDs = try subscribers.callEach(UserMethods.RegisterPseudo.self) { .init(displayName: "watcher \($0)") }
                .map(\.user.userID)

            // The group, created by an admin peer for subscriber 0; the others join it on their connections.
            let admin = try LineConnection(path: socketPath)
            defer { admin.close() }
            let created = try admin.call(
                GroupMethods.Create.self,
                .init(name: "av chat room", groupID: Self.groupID, type: .avChatRoom, owner: subscriberIDs[0])
            )
            guard created.group.type == "AVChatRoom" else { throw DaemonError("group.create made a \(created.group.type) group") }
            for joined in try Array(subscribers.dropFirst()).callEach(GroupMethods.Join.self, { _ in .init(groupID: Self.groupID) }) {
                guard joined.status == "JOINED" else { throw DaemonError("a subscriber's group.join gave \(joined.status)") }
            }
            let group = try admin.call(GroupMethods.Get.self, .init(groupID: Self.groupID))
            guard group.memberCount == plan.subscribers else {
                throw DaemonError("the group has \(group.memberCount) members after the subscribers joined, expected \(plan.subscribers)")
            }
            _ = try subscribers.callEach(EventMethods.Subscribe.self) { _ in .init(groupIDs: [Self.groupID]) }

            let users = try IMSetup.registerPseudoUsers(socketPath, count: plan.members, namePrefix: "viewer")
            for _ in 0..<Self.writers {
                writers.append(try LineConnection(path: socketPath, capacity: 64 * 1024))
            }
            return Setup(subscribers: subscribers, writers: writers, users: users)
        } catch {
            for connection in subscribers + writers { connection.close() }
            throw error
        }
    }

    /// Blocking: after both phases the group holds the subscribers again, and `system.check` is clean.
    static func check(_ socketPath: String, plan: Plan) throws -> String {
        let admin = try LineConnection(path: socketPath, timeout: 120)
        defer { admin.close() }
        let group = try admin.call(GroupMethods.Get.self, .init(groupID: Self.groupID))
        guard group.memberCount == plan.subscribers else {
            throw DaemonError("the group has \(group.memberCount) members after the leaves, expected \(plan.subscribers)")
        }
        let check = try admin.call(SystemMethods.Check.self, NoParams())
        guard check.ok else { throw DaemonError("system.check: integrity \(check.integrity), violations \(check.violations.prefix(5))") }
        return "memberCount back to \(plan.subscribers), system.check ok"
    }

    // MARK: - One phase

    struct PhaseResult: Sendable {
        var pace: PaceResult
        var tally: Tally
        var calls: Int
        var notificationWindow: Double
        var cpu: String

        var sustained: Double { self.pace.sustained }
        var sendRate: Double { self.pace.sendRate(calls: self.calls) }
        var notificationRate: Double { Double(self.tally.notifications) / self.notificationWindow }

        func callNote() -> String {
            let ms = MeasurementUnit.milliseconds
            let rate = MeasurementUnit.perSecond
            return "\(Format.grouped(Double(self.calls))) calls; per-second completions min \(rate.format(self.pace.minimumSecond)), "
                + "overall \(rate.format(self.pace.overall(calls: self.calls))); call latency (due → reply) p50 "
                + "\(ms.format(Stats.percentile(sorted: self.pace.latencies, 50))), p99 \(ms.format(Stats.percentile(sorted: self.pace.latencies, 99))); "
                + "max lag behind schedule \(ms.format(self.pace.maximumLag))"
        }

        func describe() -> String {
            let ms = MeasurementUnit.milliseconds
            let rate = MeasurementUnit.perSecond
            return "sustained \(rate.format(self.sustained)) (sent \(rate.format(self.sendRate))); " + self.callNote()
                + "; \(Format.grouped(Double(self.tally.notifications))) notifications in \(Format.decimal(self.notificationWindow, digits: 1)) s = "
                + "\(rate.format(self.notificationRate)); latency p50 \(ms.format(self.tally.latency.percentile(50))), p99 "
                + "\(ms.format(self.tally.latency.percentile(99))); LAGGED \(self.tally.ended); \(self.cpu)"
        }
    }

    /// One phase: every user makes the call once, paced; with `watched`, the subscribers' notifications are
    /// read and checked (every call one notification to each), otherwise nobody is subscribed.
    static func runPhase(
        _ phase: Phase,
        _ setup: Setup,
        plan: Plan,
        daemon: Daemon,
        watched: Bool = true,
        rate: Double = Self.offeredRate
    ) async throws -> PhaseResult {
        // The request lines, made before the clock starts.
        var lines: [[UInt8]] = []
        lines.reserveCapacity(setup.users.count)
        for (index, user) in setup.users.enumerated() {
            let authenticate = try RawRPC.request(SessionMethods.Authenticate.self, .init(accessToken: user.accessToken), id: 2 * index + 1)
            let call =
                phase == .join
                ? try RawRPC.request(GroupMethods.Join.self, .init(groupID: Self.groupID), id: 2 * index + 2)
                : try RawRPC.request(GroupMethods.Quit.self, .init(groupID: Self.groupID), id: 2 * index + 2)
            lines.append(IMSetup.batch([authenticate, call]))
        }
        let success = Array((phase == .join ? #""status":"JOINED""# : #""result":true"#).utf8)

        let expectation = FanOut.Expectation()
        let subscribers = setup.subscribers
        let kind = phase.kind
        let reader = Task {
            guard watched else { return Tally(connections: 0) }
            return try await onThread("avchatroom-reader") { try Self.read(subscribers, kind: kind, expectation: expectation) }
        }
        try await Task.sleep(for: .milliseconds(20))

        let meter = CPUMeter(daemonPID: daemon.pid)
        let writers = setup.writers
        let frozenLines = lines
        let pace: PaceResult
        do {
            pace = try await onThread("avchatroom-pacer") { try Self.pace(writers, lines: frozenLines, success: success, rate: rate) }
        } catch {
            expectation.total.store(0, ordering: .releasing)
            _ = try? await reader.value
            throw error
        }
        let expected = watched ? setup.users.count * plan.subscribers : 0
        expectation.total.store(expected, ordering: .releasing)
        let tally = try await reader.value
        let cpu = meter.summary() + " (reader thread \(Format.decimal(tally.readerCores, digits: 2)))"
        if tally.notifications != expected || tally.other > 0 || tally.wrongKind > 0 || tally.outOfOrder > 0 {
            throw DaemonError(
                "avchatroom \(phase.rawValue): expected \(expected) notifications (\(setup.users.count) × \(plan.subscribers)), got "
                    + "\(tally.notifications); per connection \(tally.perConnection.min() ?? 0)–\(tally.perConnection.max() ?? 0); "
                    + "\(tally.outOfOrder) out of order or repeated, \(tally.wrongKind) not \(kind), \(tally.ended) LAGGED, "
                    + "\(tally.other) other lines; first unexpected: \(tally.firstUnexpected ?? "none")"
            )
        }
        return PhaseResult(
            pace: pace,
            tally: tally,
            calls: setup.users.count,
            notificationWindow: watched ? Double(tally.lastReceive - pace.start) / 1e9 : .nan,
            cpu: cpu
        )
    }

    // MARK: - Pacing

    struct PaceResult: Sendable {
        /// When call 0 was due (monotonic ns).
        var start: UInt64
        var lastSend: UInt64
        /// Completion times (monotonic ns), in reply order.
        var completions: [UInt64]
        /// Sorted: due time → reply, ms.
        var latencies: [Double]
        /// Most a send went out after its due time, ms.
        var maximumLag: Double

        func sendRate(calls: Int) -> Double {
            Double(calls - 1) / (Double(self.lastSend - self.start) / 1e9)
        }

        func overall(calls: Int) -> Double {
            guard let first = self.completions.first, let last = self.completions.last, last > first else { return .nan }
            return Double(calls - 1) / (Double(last - first) / 1e9)
        }

        /// Completions in each whole second from the first reply (the last partial second left out).
        var perSecond: [Double] {
            guard let first = self.completions.first, let last = self.completions.last else { return [] }
            let seconds = Int((last - first) / 1_000_000_000)
            guard seconds > 0 else { return [] }
            var counts = Array(repeating: 0.0, count: seconds)
            for time in self.completions {
                let second = Int((time - first) / 1_000_000_000)
                if second < seconds { counts[second] += 1 }
            }
            return counts
        }

        /// The median per-second completion count; the overall rate when the phase is shorter than 2 s.
        var sustained: Double {
            let counts = self.perSecond
            return counts.count >= 2 ? Stats.median(counts) : self.overall(calls: self.completions.count)
        }

        var minimumSecond: Double { self.perSecond.min() ?? .nan }
    }

    /// Blocking: sends `lines[k]` on writer k mod W when due (k / offered rate after the start), reads the
    /// batch replies as they come; every call must succeed.
    static func pace(_ writers: [LineConnection], lines: [[UInt8]], success: [UInt8], rate: Double) throws -> PaceResult {
        let count = lines.count
        let failure = Array(#""error":"#.utf8)
        var descriptors = writers.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
        var queues: [[Int]] = Array(repeating: [], count: writers.count)
        var heads = Array(repeating: 0, count: writers.count)
        var due = Array(repeating: UInt64(0), count: count)
        var completions: [UInt64] = []
        completions.reserveCapacity(count)
        var latencies: [Double] = []
        latencies.reserveCapacity(count)
        var maximumLag: UInt64 = 0
        var next = 0
        var lastSend: UInt64 = 0
        var lastProgress = monotonicNanos()
        let interval = 1e9 / rate
        let start = monotonicNanos() + 2_000_000
        while completions.count < count {
            var now = monotonicNanos()
            var blocked = false
            while next < count {
                let dueAt = start + UInt64(Double(next) * interval)
                if dueAt > now { break }
                let writer = next % writers.count
                if queues[writer].count - heads[writer] >= Self.maximumOutstanding {
                    blocked = true
                    break
                }
                try writers[writer].send(lines[next])
                now = monotonicNanos()
                due[next] = dueAt
                maximumLag = max(maximumLag, now - dueAt)
                lastSend = now
                queues[writer].append(next)
                next += 1
            }
            var timeout: Int32 = 100
            if next < count, !blocked {
                let dueAt = start + UInt64(Double(next) * interval)
                timeout = dueAt > now ? Int32(min(100, max(1, (dueAt - now + 999_999) / 1_000_000))) : 0
            }
            let ready = poll(&descriptors, nfds_t(descriptors.count), timeout)
            if ready < 0 {
                if errno == EINTR { continue }
                throw RawSocket.Failure("poll")
            }
            if ready == 0 {
                if monotonicNanos() - lastProgress > 60_000_000_000 {
                    throw DaemonError("no reply for 60 s; \(completions.count) of \(count) calls answered, \(next) sent")
                }
                continue
            }
            for index in descriptors.indices where descriptors[index].revents != 0 {
                let received = monotonicNanos()
                var problem: String?
                let open = try writers[index].drain { reply in
                    guard heads[index] < queues[index].count else {
                        problem = problem ?? "an unexpected reply: \(RawRPC.preview(reply))"
                        return
                    }
                    let call = queues[index][heads[index]]
                    heads[index] += 1
                    if RawRPC.contains(reply, failure) || !RawRPC.contains(reply, success) {
                        problem = problem ?? "call \(call) failed: \(RawRPC.preview(reply))"
                    }
                    completions.append(received)
                    latencies.append(Double(received - due[call]) / 1e6)
                }
                if let problem { throw DaemonError(problem) }
                if !open { throw DaemonError("guildd closed writer connection \(index)") }
                lastProgress = received
            }
        }
        return PaceResult(
            start: start,
            lastSend: lastSend,
            completions: completions,
            latencies: latencies.sorted(),
            maximumLag: Double(maximumLag) / 1e6
        )
    }

    // MARK: - Subscribers

    /// What the reader saw during one phase.
    struct Tally: Sendable {
        var notifications = 0
        var latency = LatencyHistogram()
        var perConnection: [Int]
        var lastSeq: [Int64]
        var outOfOrder = 0
        var wrongKind = 0
        /// `events.ended` (LAGGED) notifications, each followed by a new subscription from `lastSeq`.
        var ended = 0
        var resubscribed = 0
        var other = 0
        var firstUnexpected: String?
        var lastReceive: UInt64 = 0
        var readerCores = Double.nan

        init(connections: Int) {
            self.perConnection = Array(repeating: 0, count: connections)
            self.lastSeq = Array(repeating: 0, count: connections)
        }
    }

    static let subscribeReply = Array(#""result":{"subscription":"#.utf8)
    static let lastSeqKey = Array(#""lastSeq":"#.utf8)

    /// Blocking: polls every subscriber and tallies lines until the expected total arrived (or nothing came
    /// for 20 s after the calls finished).
    static func read(_ connections: [LineConnection], kind: String, expectation: FanOut.Expectation) throws -> Tally {
        let wallStart = monotonicNanos()
        let cpuStart = FanOut.threadCPUSeconds()
        var tally = Tally(connections: connections.count)
        let kindMarker = Array(#""kind":"\#(kind)""#.utf8)
        var resubscribe: [(index: Int, since: Int64)] = []
        try SubscriberPoll.run(
            connections,
            event: { event in
                tally.notifications += 1
                tally.perConnection[event.index] += 1
                if event.seq <= tally.lastSeq[event.index] { tally.outOfOrder += 1 }
                tally.lastSeq[event.index] = event.seq
                if !RawRPC.contains(event.line, kindMarker) { tally.wrongKind += 1 }
                tally.latency.add(event.receivedAt - Double(event.time))
            },
            other: { index, line in
                if RawRPC.contains(line, FanOut.endedMarker) {
                    tally.ended += 1
                    let since = Self.lastSeqKey.withUnsafeBytes { RawRPC.integer(after: $0, in: line)?.value }
                    resubscribe.append((index, since ?? tally.lastSeq[index]))
                } else if RawRPC.contains(line, Self.subscribeReply) {
                    tally.resubscribed += 1
                } else {
                    tally.other += 1
                    if tally.firstUnexpected == nil { tally.firstUnexpected = RawRPC.preview(line) }
                }
            },
            afterRound: {
                for (index, since) in resubscribe {
                    try connections[index].send(EventMethods.Subscribe.self, .init(groupIDs: [Self.groupID], since: since))
                }
                resubscribe.removeAll()
            },
            closed: { index in
                DaemonError("guildd closed subscriber connection \(index) (after \(tally.perConnection[index]) notifications)")
            },
            done: { lastEvent in
                if tally.notifications > 0 { tally.lastReceive = lastEvent }
                let expected = expectation.total.load(ordering: .acquiring)
                guard expected >= 0 else { return false }
                return tally.notifications >= expected || monotonicNanos() - lastEvent > 20_000_000_000
            }
        )
        tally.readerCores = (FanOut.threadCPUSeconds() - cpuStart) / (Double(monotonicNanos() - wallStart) / 1e9)
        return tally
    }
}

/// Latencies in 0.1 ms bins up to 10 minutes, for percentiles over tens of millions of samples.
struct LatencyHistogram: Sendable {
    static let binWidth = 0.1
    static let bins = 6_000_000
    private var counts: [UInt32] = []
    private(set) var count = 0
    private(set) var maximum = 0.0

    mutating func add(_ milliseconds: Double) {
        if self.counts.isEmpty { self.counts = Array(repeating: 0, count: Self.bins) }
        let bin = min(Self.bins - 1, max(0, Int(milliseconds / Self.binWidth)))
        self.counts[bin] += 1
        self.count += 1
        self.maximum = max(self.maximum, milliseconds)
    }

    mutating func merge(_ other: LatencyHistogram) {
        guard other.count > 0 else { return }
        if self.counts.isEmpty { self.counts = Array(repeating: 0, count: Self.bins) }
        for index in other.counts.indices where other.counts[index] != 0 { self.counts[index] += other.counts[index] }
        self.count += other.count
        self.maximum = max(self.maximum, other.maximum)
    }

    /// The `p`-th percentile: the middle of the bin holding that rank.
    func percentile(_ p: Double) -> Double {
        guard self.count > 0 else { return .nan }
        let rank = Int((min(max(p, 0), 100) / 100 * Double(self.count - 1)).rounded(.down))
        var seen = 0
        for (index, count) in self.counts.enumerated() where count != 0 {
            seen += Int(count)
            if seen > rank { return (Double(index) + 0.5) * Self.binWidth }
        }
        return self.maximum
    }
}
