import Foundation
import Glibc
import GuildHarness
import GuildProtocol

/// Replay: 100,000 events (10,000 with `--quick`) made by 16 admin connections renaming 16 groups whose
/// owner is one pseudo user (8 renames in flight per connection); then, per run, a fresh connection
/// authenticates as that user and subscribes with `since: 0`, and a raw reader counts notifications until
/// the one at the subscription's head `seq` arrives. Measured from writing the subscribe request.
struct Replay: Benchmark {
    let name = "replay"
    let summary = "events/s replayed to a fresh events.subscribe {since: 0} after 100,000 group.rename events"

    static let writers = 16
    static let inFlight = 8

    func run(_ context: BenchContext) async throws -> [Measurement] {
        let events = context.quick ? 10_000 : 100_000
        let daemon = try await launchOwnDaemon(context, name: "replay")
        do {
            let socketPath = daemon.socketPath
            let subscriber = try await onThread("replay-setup") { () throws -> (userID: String, token: String) in
                let connection = try LineConnection(path: socketPath)
                defer { connection.close() }
                let auth = try connection.call(UserMethods.RegisterPseudo.self, .init(displayName: "replay subscriber"))
                let admin = try LineConnection(path: socketPath)
                defer { admin.close() }
                for index in 0..<Self.writers {
                    _ = try admin.call(GroupMethods.Create.self, .init(name: "replay \(index)", groupID: "replay-\(index)", owner: auth.user.userID))
                }
                return (auth.user.userID, auth.accessToken)
            }

            context.progress(
                "  generating \(Format.grouped(Double(events))) group.rename events (\(Self.writers) connections × \(Self.inFlight) in flight)"
            )
            let meter = CPUMeter(daemonPID: daemon.pid)
            let started = monotonicNanos()
            let perWriter = events / Self.writers
            let made = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<Self.writers {
                    group.addTask {
                        try await onThread("replay-writer-\(index)") {
                            try Self.rename(socketPath, groupID: "replay-\(index)", count: perWriter + (index < events % Self.writers ? 1 : 0))
                        }
                    }
                }
                return try await group.reduce(0, +)
            }
            let generateSeconds = Double(monotonicNanos() - started) / 1e9
            let generateCPU = meter.summary()
            context.progress(
                "  \(made) renames in \(Format.decimal(generateSeconds, digits: 1)) s = \(MeasurementUnit.perSecond.format(Double(made) / generateSeconds)); \(generateCPU)"
            )

            // Every event the subscriber may see: the renames and the 16 groupCreated.
            let expected = made + Self.writers
            var rates: [Double] = []
            var cpu: [String] = []
            for run in 1...context.runs {
                let meter = CPUMeter(daemonPID: daemon.pid)
                let token = subscriber.token
                let result = try await onThread("replay-reader") { try Self.replay(socketPath, token: token) }
                cpu.append(meter.summary())
                guard result.count == expected, result.outOfOrder == 0, result.unexpected == nil else {
                    throw DaemonError(
                        "replay: \(result.count) events up to head \(result.head), expected \(expected); \(result.outOfOrder) out of order; "
                            + "unexpected line: \(result.unexpected ?? "none")"
                    )
                }
                rates.append(Double(result.count) / result.seconds)
                context.progress(
                    "  run \(run): \(result.count) events in \(Format.decimal(result.seconds * 1000, digits: 0)) ms = "
                        + "\(MeasurementUnit.perSecond.format(rates.last!)); first event after "
                        + "\(Format.decimal(result.firstEventMilliseconds, digits: 1)) ms; \(cpu.last!)"
                )
            }
            await daemon.stop()
            reportDaemonLogProblems(daemon, context)
            return [
                Measurement(
                    benchmark: self.name,
                    figure: "since: 0 → \(Format.grouped(Double(expected))) events",
                    value: Stats.median(rates),
                    unit: .perSecond,
                    target: nil,
                    note: "median of " + Format.spread(rates, unit: .perSecond) + "; fresh authenticated connection per run; "
                        + cpu.joined(separator: " / ") + "; generating them: "
                        + "\(MeasurementUnit.perSecond.format(Double(made) / generateSeconds)) renames (\(generateCPU))"
                )
            ]
        } catch {
            await daemon.stop()
            throw error
        }
    }

    /// Blocking: `count` renames of `groupID` with up to `inFlight` outstanding; the number made.
    static func rename(_ socketPath: String, groupID: String, count: Int) throws -> Int {
        let connection = try LineConnection(path: socketPath)
        defer { connection.close() }
        let success = Array(#""result":{"#.utf8)
        var sent = 0
        var received = 0
        while received < count {
            while sent < count, sent - received < Self.inFlight {
                try connection.send(GroupMethods.Rename.self, .init(groupID: groupID, name: "name \(sent)"))
                sent += 1
            }
            let reply = try connection.readLine()
            guard RawRPC.contains(reply, success) else { throw DaemonError("group.rename: \(RawRPC.preview(reply))") }
            received += 1
        }
        return received
    }

    struct ReplayResult: Sendable {
        var count = 0
        var head: Int64 = 0
        var seconds = 0.0
        var firstEventMilliseconds = Double.nan
        var outOfOrder = 0
        var unexpected: String?
    }

    /// Blocking: authenticate, subscribe with `since: 0`, count events through the head.
    static func replay(_ socketPath: String, token: String) throws -> ReplayResult {
        let connection = try LineConnection(path: socketPath, timeout: 60, capacity: 256 * 1024)
        defer { connection.close() }
        _ = try connection.call(SessionMethods.Authenticate.self, .init(accessToken: token))
        var result = ReplayResult()
        let subscribe = try RawRPC.request(EventMethods.Subscribe.self, .init(since: 0), id: 99)
        let start = monotonicNanos()
        try connection.send(subscribe)
        result.head = try RawRPC.decode(EventMethods.Subscribe.self, try connection.readLine()).seq
        var last: Int64 = 0
        try FanOut.eventPrefix.withUnsafeBytes { prefix in
            try FanOut.seqKey.withUnsafeBytes { seqKey in
                try connection.readLines { line in
                    guard line.count > prefix.count, memcmp(line.baseAddress!, prefix.baseAddress!, prefix.count) == 0,
                        let seq = RawRPC.integer(after: seqKey, in: line, from: prefix.count)?.value
                    else {
                        result.unexpected = RawRPC.preview(line)
                        return false
                    }
                    if result.count == 0 { result.firstEventMilliseconds = Double(monotonicNanos() - start) / 1e6 }
                    result.count += 1
                    if seq <= last { result.outOfOrder += 1 }
                    last = seq
                    return seq < result.head
                }
            }
        }
        result.seconds = Double(monotonicNanos() - start) / 1e9
        return result
    }
}
