import Foundation
import Glibc
import GuildClient
import GuildHarness
import GuildProtocol

/// `system.ping` calls per second with N concurrent in-flight calls: 1, 8 and 64 on one connection, and
/// 8 connections × 8. Each in-flight slot is a task looping `call` until the deadline; in the last shape one
/// task on the client's task executor keeps 64 in flight with `calls(_:count:)`.
struct PingThroughput: Benchmark {
    let name = "ping-throughput"
    let summary = "system.ping calls/s with 1, 8, 64 in flight on one connection and 8 connections × 8"

    struct Shape: Sendable {
        var connections: Int
        var inFlight: Int
        var figure: String
        var target: Target?
        var callers = Callers.tasks
    }

    /// How the in-flight calls are made.
    enum Callers: Sendable {
        /// One task per call in flight, each looping `call`.
        case tasks
        /// The same tasks, preferring the client's task executor (``GuildClient/taskExecutor``): each reply
        /// resumes its call on the thread that read it, with no hop to the global pool and back.
        case tasksOnClientLoop
        /// One task per connection, preferring the client's task executor, looping `calls(_:count:)` with all of
        /// the shape's calls: one line each, sent together, the task resumed once they are all answered (like the
        /// raw client).
        case pipelined
    }

    static let shapes = [
        Shape(connections: 1, inFlight: 1, figure: "1 conn × 1 in flight", target: nil),
        Shape(connections: 1, inFlight: 8, figure: "1 conn × 8 in flight", target: nil),
        Shape(connections: 1, inFlight: 64, figure: "1 conn × 64 in flight", target: .value(.atLeast, 100_000)),
        Shape(connections: 8, inFlight: 8, figure: "8 conns × 8 in flight", target: .value(.atLeast, 100_000)),
        Shape(
            connections: 1,
            inFlight: 64,
            figure: "1 conn × 64 in flight, tasks on GuildClient.taskExecutor",
            target: nil,
            callers: .tasksOnClientLoop
        ),
        Shape(
            connections: 1,
            inFlight: 64,
            figure: "1 conn × 64 in flight, calls(_:count: 64) from one task on the executor",
            target: nil,
            callers: .pipelined
        ),
    ]

    func run(_ context: BenchContext) async throws -> [Measurement] {
        let daemon = try await context.sharedDaemon()
        var measurements: [Measurement] = []
        // The rates and the client's CPU of each way of keeping 64 calls in flight on one connection.
        var sixtyFour: [Callers: (rates: [Double], cores: Double)] = [:]
        for shape in Self.shapes {
            var clients: [GuildClient] = []
            do {
                for _ in 0..<shape.connections {
                    clients.append(try await GuildClient.connect(path: daemon.socketPath))
                }
                let inFlight = shape.inFlight
                let callers = shape.callers
                _ = try await Self.measure(clients: clients, inFlight: inFlight, duration: min(0.5, context.duration), callers: callers)
                var rates: [Double] = []
                let meter = CPUMeter(daemonPID: daemon.pid)
                for _ in 0..<context.runs {
                    rates.append(try await Self.measure(clients: clients, inFlight: inFlight, duration: context.duration, callers: callers))
                }
                for client in clients { await client.close() }
                let cpu = meter.summary()
                if shape.connections == 1, shape.inFlight == 64 {
                    sixtyFour[callers] = (rates, meter.benchCores())
                }
                let median = Stats.median(rates)
                context.progress("  \(shape.figure): median \(MeasurementUnit.perSecond.format(median)); \(cpu)")
                measurements.append(
                    Measurement(
                        benchmark: self.name,
                        figure: shape.figure,
                        value: median,
                        unit: .perSecond,
                        target: shape.target,
                        note: "median of " + Format.spread(rates, unit: .perSecond) + "; " + cpu
                    )
                )
            } catch {
                for client in clients { await client.close() }
                throw error
            }
        }

        // The daemon's capacity without GuildClient, against the floor: the same blocking raw client (it writes
        // its in-flight request lines at once, then reads as many reply lines, and repeats) against a raw echo
        // server in this process and against guildd, alternating run by run.
        let echo = try EchoServer.start(path: context.path("echo-rate.sock"))
        var rawSingle = Double.nan
        do {
            for shape in Self.rawShapes {
                let (guild, floor, cpu) = try await Self.rawSeries(shape, daemon: daemon, echoPath: echo.path, context: context)
                if shape.connections == 1 { rawSingle = Stats.median(guild) }
                context.progress(
                    "  \(shape.figure): guildd median \(MeasurementUnit.perSecond.format(Stats.median(guild))), raw echo "
                        + "\(MeasurementUnit.perSecond.format(Stats.median(floor))); \(cpu)"
                )
                measurements.append(
                    Measurement(
                        benchmark: self.name,
                        figure: shape.figure,
                        value: Stats.median(guild),
                        unit: .perSecond,
                        baseline: Stats.median(floor),
                        baselineName: "raw echo",
                        target: shape.target,
                        note: "the same raw client against both; guildd median of " + Format.spread(guild, unit: .perSecond)
                            + ", echo " + Format.spread(floor, unit: .perSecond) + "; " + cpu
                    )
                )
            }
        } catch {
            await echo.stop()
            throw error
        }
        await echo.stop()
        let ways: [(Callers, String, String)] = [
            (.tasks, "GuildClient 1 conn × 64", "64 calls from ordinary tasks"),
            (
                .tasksOnClientLoop, "GuildClient 1 conn × 64 on its task executor",
                "64 calls from tasks that prefer GuildClient.taskExecutor: no thread hop per call"
            ),
            (
                .pipelined, "GuildClient 1 conn × 64 with calls(_:count:)",
                "one task on GuildClient.taskExecutor keeps 64 calls in flight, resumed once per 64 replies (like the raw client)"
            ),
        ]
        for (callers, name, how) in ways {
            guard let (rates, cores) = sixtyFour[callers] else { continue }
            let rate = Stats.median(rates)
            measurements.append(
                Measurement(
                    benchmark: self.name,
                    figure: "\(name) vs raw client",
                    value: rate,
                    unit: .perSecond,
                    baseline: rawSingle,
                    baselineName: "raw client → guildd, 64 pipelined",
                    target: .ratio(.atLeast, 0.8),
                    note: "the client's share of the daemon's capacity; \(how)"
                )
            )
            measurements.append(
                Measurement(
                    benchmark: self.name,
                    figure: "\(name): the client's own CPU",
                    value: cores,
                    unit: .cores,
                    target: .value(.atMost, 0.5),
                    note: "the bench process (GuildClient's event loop and the calling tasks) while it ran at "
                        + MeasurementUnit.perSecond.format(rate)
                )
            )
        }
        return measurements
    }

    /// The raw-client shapes: the same client against the raw echo (the floor) and against guildd.
    static let rawShapes = [
        Shape(connections: 1, inFlight: 64, figure: "raw client, 1 conn × 64 pipelined", target: .ratio(.atLeast, 1.0 / 3)),
        Shape(connections: 8, inFlight: 8, figure: "raw client, 8 conns × 8 pipelined", target: .ratio(.atLeast, 1.0 / 3)),
    ]

    /// `context.runs` rates of guildd and of the echo, measured alternately after a warm-up of each; the CPU
    /// summary covers guildd's runs.
    static func rawSeries(
        _ shape: Shape,
        daemon: Daemon,
        echoPath: String,
        context: BenchContext
    ) async throws -> (guild: [Double], echo: [Double], cpu: String) {
        let warmUp = min(0.5, context.duration)
        _ = try await Self.rawRate(echoPath, shape: shape, duration: warmUp)
        _ = try await Self.rawRate(daemon.socketPath, shape: shape, duration: warmUp)
        var guild: [Double] = []
        var echo: [Double] = []
        var cpu: [String] = []
        for _ in 0..<context.runs {
            echo.append(try await Self.rawRate(echoPath, shape: shape, duration: context.duration))
            let meter = CPUMeter(daemonPID: daemon.pid)
            guild.append(try await Self.rawRate(daemon.socketPath, shape: shape, duration: context.duration))
            cpu.append(meter.summary())
        }
        return (guild, echo, cpu.last ?? "")
    }

    /// Replies per second of `shape.connections` raw pipelined connections (one thread each), summed.
    static func rawRate(_ path: String, shape: Shape, duration: Double) async throws -> Double {
        try await withThrowingTaskGroup(of: Double.self) { group in
            for index in 0..<shape.connections {
                group.addTask {
                    try await onThread("raw-pipeline-\(index)") { try Self.rawPipelined(path, depth: shape.inFlight, duration: duration) }
                }
            }
            return try await group.reduce(0, +)
        }
    }

    /// Pings per second from one blocking connection that writes `depth` request lines at once and then reads
    /// `depth` reply lines, until the deadline.
    static func rawPipelined(_ path: String, depth: Int, duration: Double) throws -> Double {
        let fd = try RawSocket.connect(path)
        defer { close(fd) }
        RawSocket.setTimeout(fd, seconds: 10)
        var request: [UInt8] = []
        for id in 1...depth {
            request += Array("{\"jsonrpc\":\"2.0\",\"id\":\(id),\"method\":\"system.ping\"}\n".utf8)
        }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        let start = monotonicNanos()
        let deadline = start + UInt64(duration * 1e9)
        var total = 0
        while monotonicNanos() < deadline {
            try request.withUnsafeBytes { try RawSocket.writeAll(fd, $0) }
            var lines = 0
            while lines < depth {
                let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
                if count < 0 {
                    if errno == EINTR { continue }
                    throw RawSocket.Failure("read")
                }
                if count == 0 { throw RawSocket.Failure(message: "read: connection closed by guildd") }
                for index in 0..<count where buffer[index] == UInt8(ascii: "\n") { lines += 1 }
            }
            total += depth
        }
        return Double(total) / (Double(monotonicNanos() - start) / 1e9)
    }

    /// Calls per second over `duration` seconds with `inFlight` calls in flight per client, made as `callers`
    /// says.
    static func measure(clients: [GuildClient], inFlight: Int, duration: Double, callers: Callers = .tasks) async throws -> Double {
        let start = monotonicNanos()
        let deadline = start + UInt64(duration * 1e9)
        let total = try await withThrowingTaskGroup(of: Int.self) { group in
            for client in clients {
                switch callers {
                case .pipelined:
                    group.addTask(executorPreference: client.taskExecutor) {
                        var count = 0
                        while monotonicNanos() < deadline {
                            for reply in try await client.calls(SystemMethods.Ping.self, count: inFlight) { _ = try reply.get() }
                            count += inFlight
                        }
                        return count
                    }
                case .tasks, .tasksOnClientLoop:
                    for _ in 0..<inFlight {
                        group.addTask(executorPreference: callers == .tasksOnClientLoop ? client.taskExecutor : nil) {
                            var count = 0
                            while monotonicNanos() < deadline {
                                _ = try await client.call(SystemMethods.Ping.self)
                                count += 1
                            }
                            return count
                        }
                    }
                }
            }
            return try await group.reduce(0, +)
        }
        return Double(total) / (Double(monotonicNanos() - start) / 1e9)
    }
}
