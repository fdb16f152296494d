import Foundation
import Glibc
import GuildHarness
import GuildProtocol
import Synchronization

/// Event fan-out: one group of 1,000 members, each member a pseudo user on its own connection subscribed to
/// the group; 16 admin connections then change the group's membership in a burst (each adds or removes an
/// extra pre-registered user of its own, one call in flight), so every committed change is one
/// `events.event` notification to each of the 1,000 subscribers.
///
/// The subscribers are raw non-blocking sockets read by one `poll` thread that counts lines and picks the
/// envelope's `"seq":` and the event's `"time":` out of each by byte scanning, so that the bench stays
/// cheaper than guildd. Latency is receive time (CLOCK_REALTIME) minus the event's `time`, which guildd takes
/// (in whole ms) when it starts the change, before the group commit and its fsync.
struct FanOut: Benchmark {
    let name = "fan-out"
    let summary = "events.event notifications/s and commit→delivery latency, 1 group × 1,000 subscribed members, 16 writers"

    static let members = 1_000
    /// The notifications/s the burst is to reach (issue 16); the sustained phase runs at half of it.
    static let targetRate = 1_000_000.0
    static let writers = 16
    static let groupID = "fanout"

    /// The subscribers, the writers and the extra users the writers add and remove.
    struct Setup: Sendable {
        var subscribers: [LineConnection]
        /// Which host each subscriber is on (an index into the hosts ``prepare(_:subscriberHosts:)`` was given;
        /// all 0 with one daemon).
        var hosts: [Int]
        var writers: [LineConnection]
        var extraUsers: [String]

        var hostCount: Int { (self.hosts.max() ?? 0) + 1 }

        func closeAll() {
            for connection in self.subscribers + self.writers { connection.close() }
        }
    }

    /// What the reader saw during one burst.
    struct Tally: Sendable {
        var notifications = 0
        /// Receive time − event time (ms), per host the subscribers are on.
        var hostLatencies: [[Double]]
        /// When each host's last notification arrived (ms since the epoch, like ``SubscriberPoll/Event/receivedAt``).
        var hostLastReceive: [Double]
        var perConnection: [Int]
        var lastSeq: [Int64]
        /// An order-sensitive digest of the `seq`s each connection received: equal digests and counts mean the
        /// same events in the same order.
        var seqDigest: [UInt64]
        var outOfOrder = 0
        var ended = 0
        var other = 0
        var firstUnexpected: String?
        var lastReceive: UInt64 = 0
        /// CPU time of the reader thread / its wall time: 1.0 would mean the bench's reader is the bottleneck.
        var readerCores = Double.nan

        init(connections: Int, hosts: Int = 1) {
            self.hostLatencies = Array(repeating: [], count: hosts)
            self.hostLastReceive = Array(repeating: 0, count: hosts)
            self.perConnection = Array(repeating: 0, count: connections)
            self.lastSeq = Array(repeating: 0, count: connections)
            self.seqDigest = Array(repeating: 0, count: connections)
        }

        /// Every host's latencies together.
        var latencies: [Double] { self.hostLatencies.count == 1 ? self.hostLatencies[0] : self.hostLatencies.flatMap { $0 } }

        /// Whether every connection received `count` events, the same ones in the same order (and none twice:
        /// each `seq` above the one before).
        func everyConnectionGotTheSame(_ count: Int) -> Bool {
            self.outOfOrder == 0 && self.perConnection.allSatisfy { $0 == count }
                && self.seqDigest.allSatisfy { $0 == self.seqDigest.first } && self.lastSeq.allSatisfy { $0 == self.lastSeq.first }
        }
    }

    /// Written by the burst once the writers are done: how many notifications the reader should wait for.
    final class Expectation: Sendable {
        let total = Atomic<Int>(-1)
    }

    func run(_ context: BenchContext) async throws -> [Measurement] {
        // Changes per writer per burst (even: every add is undone by a remove).
        let changesPerWriter = context.quick ? 10 : 64
        let runs = context.runs
        try raiseFileLimit(atLeast: Self.members + Self.writers + 256)
        let daemon = try await launchOwnDaemon(context, name: "fanout")
        var setup: Setup?
        do {
            context.progress("  registering \(Self.members) subscribers + \(Self.writers) extra users, creating the group, subscribing")
            let started = monotonicNanos()
            let socketPath = daemon.socketPath
            let ready = try await onThread("fan-out-setup") { try Self.prepare(socketPath) }
            setup = ready
            context.progress(
                "  set up in \(Format.decimal(Double(monotonicNanos() - started) / 1e9, digits: 1)) s; guildd VmRSS "
                    + MeasurementUnit.mebibytes.format(try daemon.memory().rssMiB)
            )

            // Warm-up burst, then the measured ones.
            _ = try await Self.burst(ready, changesPerWriter: 2, daemons: [daemon])
            var rates: [Double] = []
            var latencies: [Double] = []
            var notes: [String] = []
            var totalNotifications = 0
            for run in 1...runs {
                let result = try await Self.burst(ready, changesPerWriter: changesPerWriter, daemons: [daemon])
                rates.append(result.rate)
                latencies += result.tally.latencies
                totalNotifications += result.tally.notifications
                notes.append(result.cpu)
                context.progress(
                    "  run \(run): \(Format.grouped(Double(result.tally.notifications))) notifications "
                        + "(\(result.changes) changes × \(Self.members)) in \(Format.decimal(result.window, digits: 2)) s = "
                        + "\(MeasurementUnit.perSecond.format(result.rate)); writes took \(Format.decimal(result.writeSeconds, digits: 2)) s "
                        + "(\(MeasurementUnit.perSecond.format(Double(result.changes) / result.writeSeconds)) changes); "
                        + "latency p50 \(MeasurementUnit.milliseconds.format(Stats.percentile(result.tally.latencies, 50))), "
                        + "p99 \(MeasurementUnit.milliseconds.format(Stats.percentile(result.tally.latencies, 99))); \(result.cpu)"
                )
            }
            // Latency under a sustained load rather than a burst: the writers paced to 50% of the rate the target
            // asks for (each writer's changes evenly spaced, the writers staggered), so nothing queues but the work
            // itself; or to `--sustained-rate`.
            let offered = context.sustainedRate ?? Self.targetRate / 2
            let pacedRate = max(offered / Double(Self.members), Double(Self.writers))
            let pacedSeconds = context.quick ? 2.0 : 5.0
            let perWriter = max(Int(pacedRate * pacedSeconds) / Self.writers / 2 * 2, 2)
            let paced = try await Self.burst(ready, changesPerWriter: perWriter, daemons: [daemon], changesPerSecond: pacedRate)
            var pacedLatencies = paced.tally.latencies
            pacedLatencies.sort()
            context.progress(
                "  sustained at \(MeasurementUnit.perSecond.format(pacedRate * Double(Self.members))) (\(Format.decimal(pacedRate, digits: 0)) changes/s): "
                    + "\(Format.grouped(Double(paced.tally.notifications))) notifications, latency p50 "
                    + "\(MeasurementUnit.milliseconds.format(Stats.percentile(sorted: pacedLatencies, 50))), p99 "
                    + "\(MeasurementUnit.milliseconds.format(Stats.percentile(sorted: pacedLatencies, 99))); \(paced.cpu)"
            )
            let memory = try daemon.memory()
            ready.closeAll()
            setup = nil
            await daemon.stop()
            reportDaemonLogProblems(daemon, context)

            latencies.sort()
            let p50 = Stats.percentile(sorted: latencies, 50)
            let p99 = Stats.percentile(sorted: latencies, 99)
            let changes = changesPerWriter * Self.writers
            let shape =
                "\(runs) bursts × \(Format.grouped(Double(changes))) changes "
                + "(16 writers × \(changesPerWriter), 1 in flight each) × "
                + "\(Format.grouped(Double(Self.members))) subscribers"
            return [
                Measurement(
                    benchmark: self.name,
                    figure: "notifications/s, 1,000 subscribers",
                    value: Stats.median(rates),
                    unit: .perSecond,
                    target: .value(.atLeast, Self.targetRate),
                    note: "median of " + Format.spread(rates, unit: .perSecond) + "; " + shape
                        + "; window = first write → last notification; " + notes.joined(separator: " / ")
                        + "; guildd VmRSS \(MeasurementUnit.mebibytes.format(memory.rssMiB)) with 1,016 connections"
                ),
                Measurement(
                    benchmark: self.name,
                    figure: "commit→delivery latency p50",
                    value: p50,
                    unit: .milliseconds,
                    target: nil,
                    note: "\(Format.grouped(Double(totalNotifications))) notifications; receive time − event time (ms, taken before the commit)"
                ),
                Measurement(
                    benchmark: self.name,
                    figure: "commit→delivery latency p99",
                    value: p99,
                    unit: .milliseconds,
                    target: nil,
                    note:
                        "max \(MeasurementUnit.milliseconds.format(latencies.last ?? .nan)); a change is also delayed by the fan-out of the changes committed just before it"
                ),
                Measurement(
                    benchmark: self.name,
                    figure: "commit→delivery p50, sustained 50%",
                    value: Stats.percentile(sorted: pacedLatencies, 50),
                    unit: .milliseconds,
                    target: nil,
                    note: "writers paced to \(context.sustainedRate == nil ? "50% of the 1,000,000/s target" : "--sustained-rate"): "
                        + "\(MeasurementUnit.perSecond.format(pacedRate * Double(Self.members))) for "
                        + "\(Format.decimal(pacedSeconds, digits: 0)) s"
                ),
                Measurement(
                    benchmark: self.name,
                    figure: "commit→delivery p99, sustained 50%",
                    value: Stats.percentile(sorted: pacedLatencies, 99),
                    unit: .milliseconds,
                    target: .value(.below, 20),
                    note: "max \(MeasurementUnit.milliseconds.format(pacedLatencies.last ?? .nan)); \(paced.cpu)"
                ),
            ]
        } catch {
            setup?.closeAll()
            await daemon.stop()
            throw error
        }
    }

    // MARK: - Setup

    /// Blocking: subscribers registered, the group (of every subscriber) created, subscriptions open; writers
    /// connected. The subscribers connect to `subscriberHosts` (by default ``members`` of them to `socketPath`),
    /// the group, the extra users and the writers to `socketPath`.
    static func prepare(_ socketPath: String, subscriberHosts: [(socket: String, count: Int)]? = nil) throws -> Setup {
        let subscriberHosts = subscriberHosts ?? [(socketPath, Self.members)]
        let hosts = subscriberHosts.enumerated().flatMap { index, host in Array(repeating: index, count: host.count) }
        let members = hosts.count
        var subscribers: [LineConnection] = []
        var writers: [LineConnection] = []
        do {
            // One pseudo user per subscriber connection, registered on it (which binds it); all requests sent
            // before the replies are read, so group commit takes them together.
            for host in subscriberHosts {
                for _ in 0..<host.count {
                    subscribers.append(try LineConnection(path: host.socket, capacity: 32 * 1024))
                }
            }
            let userIDs = try subscribers.callEach(UserMethods.RegisterPseudo.self) { .init(displayName: "member \($0)") }.map(\.user.userID)

            // The extra users (their registering connection is bound to each in turn, then closed).
            let registrar = try LineConnection(path: socketPath)
            defer { registrar.close() }
            var extraUsers: [String] = []
            for index in 0..<Self.writers {
                extraUsers.append(try registrar.call(UserMethods.RegisterPseudo.self, .init(displayName: "extra \(index)")).user.userID)
            }

            // The group, created by an admin peer (no session) for the first member.
            let admin = try LineConnection(path: socketPath)
            defer { admin.close() }
            let created = try admin.call(
                GroupMethods.Create.self,
                .init(name: "fan-out", groupID: Self.groupID, members: userIDs.map { .init(userID: $0) }, owner: userIDs[0])
            )
            guard created.group.memberCount == members, created.notFoundUsers.isEmpty else {
                throw DaemonError("group.create made \(created.group.memberCount) members (not found: \(created.notFoundUsers.count))")
            }

            _ = try subscribers.callEach(EventMethods.Subscribe.self) { _ in .init(groupIDs: [Self.groupID]) }
            for connection in subscribers { connection.setNonBlocking() }

            for _ in 0..<Self.writers {
                writers.append(try LineConnection(path: socketPath))
            }
            return Setup(subscribers: subscribers, hosts: hosts, writers: writers, extraUsers: extraUsers)
        } catch {
            for connection in subscribers + writers { connection.close() }
            throw error
        }
    }

    // MARK: - One burst

    struct BurstResult: Sendable {
        var tally: Tally
        var changes: Int
        var rate: Double
        /// Each host's notifications / (first write → its last notification).
        var hostRates: [Double]
        /// First write → last notification, s.
        var window: Double
        var writeSeconds: Double
        var cpu: String
    }

    /// The writers make `changesPerWriter` changes each, as fast as they are answered or, given
    /// `changesPerSecond`, paced to that total rate. `daemons` (the writers' first) are the ones whose CPU is
    /// measured. Fails unless every subscriber received every change's event once, in order.
    static func burst(
        _ setup: Setup,
        changesPerWriter: Int,
        daemons: [Daemon],
        changesPerSecond: Double? = nil
    ) async throws -> BurstResult {
        let expectation = Expectation()
        let subscribers = setup.subscribers
        let hosts = setup.hosts
        let reader = Task {
            try await onThread("fan-out-reader") { try Self.read(subscribers, expectation: expectation, hosts: hosts) }
        }
        // Let the reader thread reach poll() before the first write.
        try await Task.sleep(for: .milliseconds(20))

        let meter = CPUMeter(daemonPIDs: daemons.map(\.pid))
        let start = monotonicNanos()
        let wallStart = wallClockMilliseconds()
        // Each writer's interval between changes, and its offset, when paced.
        let interval = changesPerSecond.map { UInt64(Double(Self.writers) / $0 * 1e9) }
        let changes: Int
        do {
            changes = try await withThrowingTaskGroup(of: Int.self) { group in
                for (index, writer) in setup.writers.enumerated() {
                    let user = setup.extraUsers[index]
                    group.addTask {
                        try await onThread("fan-out-writer-\(index)") {
                            let pacing = interval.map { (start: start + $0 * UInt64(index) / UInt64(Self.writers), interval: $0) }
                            return try Self.write(writer, user: user, changes: changesPerWriter, pacing: pacing)
                        }
                    }
                }
                return try await group.reduce(0, +)
            }
        } catch {
            expectation.total.store(0, ordering: .releasing)
            _ = try? await reader.value
            throw error
        }
        let writeSeconds = Double(monotonicNanos() - start) / 1e9
        let expected = changes * subscribers.count
        expectation.total.store(expected, ordering: .releasing)
        let tally = try await reader.value
        let cpu = meter.summary() + " (reader thread \(Format.decimal(tally.readerCores, digits: 2)))"

        if tally.ended > 0 || tally.other > 0 || tally.notifications != expected || !tally.everyConnectionGotTheSame(changes) {
            let digests = Set(tally.seqDigest).count
            throw DaemonError(
                "fan-out: expected \(expected) notifications (\(changes) changes × \(subscribers.count)), got \(tally.notifications); "
                    + "per connection \(tally.perConnection.min() ?? 0)–\(tally.perConnection.max() ?? 0); \(tally.outOfOrder) out of order; "
                    + "\(digests) different sequences of events; "
                    + "\(tally.ended) events.ended, \(tally.other) other lines; first unexpected line: \(tally.firstUnexpected ?? "none")"
            )
        }
        let window = Double(tally.lastReceive - start) / 1e9
        let hostRates = tally.hostLatencies.indices.map { host in
            Double(tally.hostLatencies[host].count) / ((tally.hostLastReceive[host] - wallStart) / 1e3)
        }
        return BurstResult(
            tally: tally,
            changes: changes,
            rate: Double(tally.notifications) / window,
            hostRates: hostRates,
            window: window,
            writeSeconds: writeSeconds,
            cpu: cpu
        )
    }

    /// Blocking: alternately adds and removes `user`, one call in flight; the number of changes made.
    /// Paced, change k is sent no earlier than `pacing.start + k × pacing.interval` (ns, monotonic).
    static func write(_ connection: LineConnection, user: String, changes: Int, pacing: (start: UInt64, interval: UInt64)? = nil) throws -> Int {
        let add = try RawRPC.request(GroupMethods.AddMembers.self, .init(groupID: Self.groupID, userIDs: [user]), id: 1)
        let remove = try RawRPC.request(GroupMethods.RemoveMembers.self, .init(groupID: Self.groupID, userIDs: [user]), id: 2)
        let success = Array(#""result":"SUCC""#.utf8)
        var made = 0
        for change in 0..<changes {
            if let pacing {
                let due = pacing.start + UInt64(change) * pacing.interval
                let now = monotonicNanos()
                if due > now {
                    var wait = timespec(tv_sec: Int((due - now) / 1_000_000_000), tv_nsec: Int((due - now) % 1_000_000_000))
                    nanosleep(&wait, nil)
                }
            }
            try connection.send(change % 2 == 0 ? add : remove)
            let reply = try connection.readLine()
            guard RawRPC.contains(reply, success) else {
                throw DaemonError("\(change % 2 == 0 ? "group.addMembers" : "group.removeMembers") did not succeed: \(RawRPC.preview(reply))")
            }
            made += 1
        }
        return made
    }

    static let eventPrefix = Array(#"{"jsonrpc":"2.0","method":"events.event","params":{"#.utf8)
    static let endedMarker = Array(#""events.ended""#.utf8)
    static let seqKey = Array(#""seq":"#.utf8)
    static let timeKey = Array(#""time":"#.utf8)

    /// Blocking: polls every subscriber socket and tallies lines until the expected total arrived (or nothing
    /// came for 10 s after the writers finished). `hosts` is which host each connection is on (default: all 0).
    static func read(_ connections: [LineConnection], expectation: Expectation, hosts: [Int]? = nil) throws -> Tally {
        let wallStart = monotonicNanos()
        let cpuStart = Self.threadCPUSeconds()
        var tally = try Self.readLoop(connections, expectation: expectation, hosts: hosts ?? Array(repeating: 0, count: connections.count))
        tally.readerCores = (Self.threadCPUSeconds() - cpuStart) / (Double(monotonicNanos() - wallStart) / 1e9)
        return tally
    }

    private static func readLoop(_ connections: [LineConnection], expectation: Expectation, hosts: [Int]) throws -> Tally {
        var tally = Tally(connections: connections.count, hosts: (hosts.max() ?? 0) + 1)
        try SubscriberPoll.run(
            connections,
            event: { event in
                let host = hosts[event.index]
                tally.notifications += 1
                tally.perConnection[event.index] += 1
                if event.seq <= tally.lastSeq[event.index] { tally.outOfOrder += 1 }
                tally.lastSeq[event.index] = event.seq
                tally.seqDigest[event.index] = tally.seqDigest[event.index] &* 1_099_511_628_211 &+ UInt64(bitPattern: event.seq)
                tally.hostLatencies[host].append(event.receivedAt - Double(event.time))
                tally.hostLastReceive[host] = event.receivedAt
            },
            other: { _, line in
                if RawRPC.contains(line, Self.endedMarker) { tally.ended += 1 } else { tally.other += 1 }
                if tally.firstUnexpected == nil { tally.firstUnexpected = RawRPC.preview(line) }
            },
            closed: { index in
                DaemonError("guildd closed subscriber connection \(index) (after \(tally.perConnection[index]) notifications)")
            },
            done: { lastEvent in
                if tally.notifications > 0 { tally.lastReceive = lastEvent }
                let expected = expectation.total.load(ordering: .acquiring)
                guard expected >= 0 else { return false }
                return tally.notifications >= expected || tally.ended > 0 || monotonicNanos() - lastEvent > 10_000_000_000
            }
        )
        return tally
    }

    /// CPU time of the calling thread, s.
    static func threadCPUSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
