import Foundation
import Glibc
import GuildClient
import GuildHarness
import GuildProtocol

/// `system.ping` calls per second with N concurrent in-flight calls: 1, 8 and 64 on one connection, and
/// 8 connections × 8. Each in-flight slot is a task looping `call` until the deadline.
struct PingThroughput: Benchmark {
    let name = "ping-throughput"
    let summary = "system.ping calls/s with 1, 8, 64 in flight on one connection and 8 connections × 8"

    struct Shape: Sendable {
        var connections: Int
        var inFlight: Int
        var figure: String
        var target: Target?
    }

    static let shapes = [
        Shape(connections: 1, inFlight: 1, figure: "1 conn × 1 in flight", target: nil),
        Shape(connections: 1, inFlight: 8, figure: "1 conn × 8 in flight", target: nil),
        Shape(connections: 1, inFlight: 64, figure: "1 conn × 64 in flight", target: .value(.atLeast, 100_000)),
        Shape(connections: 8, inFlight: 8, figure: "8 conns × 8 in flight", target: .value(.atLeast, 100_000)),
    ]

    func run(_ context: BenchContext) async throws -> [Measurement] {
        let daemon = try await context.sharedDaemon()
        var measurements: [Measurement] = []
        for shape in Self.shapes {
            var clients: [GuildClient] = []
            do {
                for _ in 0..<shape.connections {
                    clients.append(try await GuildClient.connect(path: daemon.socketPath))
                }
                _ = try await Self.measure(clients: clients, inFlight: shape.inFlight, duration: min(0.5, context.duration))
                var rates: [Double] = []
                let meter = CPUMeter(daemonPID: daemon.pid)
                for _ in 0..<context.runs {
                    rates.append(try await Self.measure(clients: clients, inFlight: shape.inFlight, duration: context.duration))
                }
                for client in clients { await client.close() }
                let cpu = meter.summary()
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

        // Diagnostic: the daemon's capacity without GuildClient — a blocking raw client keeping 64 pings in flight
        // (writes 64 request lines at once, reads the 64 replies, repeats).
        let socketPath = daemon.socketPath
        let duration = context.duration
        _ = try await onThread("raw-pipeline") { try Self.rawPipelined(socketPath, depth: 64, duration: min(0.5, duration)) }
        var rates: [Double] = []
        let meter = CPUMeter(daemonPID: daemon.pid)
        for _ in 0..<context.runs {
            rates.append(try await onThread("raw-pipeline") { try Self.rawPipelined(socketPath, depth: 64, duration: duration) })
        }
        let cpu = meter.summary()
        let median = Stats.median(rates)
        context.progress("  raw pipelined client, 64 in flight: median \(MeasurementUnit.perSecond.format(median)); \(cpu)")
        measurements.append(
            Measurement(
                benchmark: self.name,
                figure: "raw blocking client, 64 pipelined",
                value: median,
                unit: .perSecond,
                target: nil,
                note: "diagnostic: daemon capacity without GuildClient; median of " + Format.spread(rates, unit: .perSecond) + "; " + cpu
            )
        )
        return measurements
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

    /// Calls per second over `duration` seconds with `inFlight` looping tasks per client.
    static func measure(clients: [GuildClient], inFlight: Int, duration: Double) async throws -> Double {
        let start = monotonicNanos()
        let deadline = start + UInt64(duration * 1e9)
        let total = try await withThrowingTaskGroup(of: Int.self) { group in
            for client in clients {
                for _ in 0..<inFlight {
                    group.addTask {
                        var count = 0
                        while monotonicNanos() < deadline {
                            _ = try await client.call(SystemMethods.Ping.self)
                            count += 1
                        }
                        return count
                    }
                }
            }
            return try await group.reduce(0, +)
        }
        return Double(total) / (Double(monotonicNanos() - start) / 1e9)
    }
}
