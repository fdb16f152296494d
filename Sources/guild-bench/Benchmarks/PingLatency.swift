import Foundation
import Glibc
import GuildClient
import GuildProtocol

/// Sequential `system.ping` round trips over one GuildClient connection, against a raw Unix-socket echo of
/// a 60-byte line (blocking read/write, echo server on a thread of this process).
struct PingLatency: Benchmark {
    let name = "ping-latency"
    let summary = "sequential system.ping round trips (p50/p99) vs a raw Unix-socket echo"

    func run(_ context: BenchContext) async throws -> [Measurement] {
        let calls = context.quick ? 3_000 : 20_000
        let warmup = max(calls / 10, 500)
        let daemon = try await context.sharedDaemon()

        context.progress("  guild: \(calls) pings after \(warmup) warm-up")
        let guild = try await withClient(daemon.socketPath) { client in
            var samples: [Double] = []
            samples.reserveCapacity(calls)
            for _ in 0..<warmup {
                let pong = try await client.call(SystemMethods.Ping.self)
                guard pong == "pong" else { throw DaemonError("system.ping returned \(pong)") }
            }
            for _ in 0..<calls {
                let start = monotonicNanos()
                _ = try await client.call(SystemMethods.Ping.self)
                samples.append(Double(monotonicNanos() - start) / 1_000)
            }
            return samples.sorted()
        }

        // Diagnostic: the same pings from a blocking raw-socket client, separating daemon cost from client cost.
        context.progress("  raw client → guildd: \(calls) pings after \(warmup) warm-up")
        let socketPath = daemon.socketPath
        let rawClient = try await onThread("raw-ping-client") { try Self.rawPings(socketPath, calls: calls, warmup: warmup) }.sorted()

        context.progress("  raw echo: \(calls) round trips of 60 bytes after \(warmup) warm-up")
        let raw = try await RawEcho.measure(path: context.path("echo.sock"), calls: calls, warmup: warmup).sorted()

        let guildP50 = Stats.percentile(sorted: guild, 50)
        let guildP99 = Stats.percentile(sorted: guild, 99)
        let rawP50 = Stats.percentile(sorted: raw, 50)
        let rawP99 = Stats.percentile(sorted: raw, 99)
        context.progress(
            "  guild p50 \(MeasurementUnit.microseconds.format(guildP50)), p99 \(MeasurementUnit.microseconds.format(guildP99)); "
                + "raw p50 \(MeasurementUnit.microseconds.format(rawP50)), p99 \(MeasurementUnit.microseconds.format(rawP99))"
        )
        return [
            Measurement(
                benchmark: self.name, figure: "p50", value: guildP50, unit: .microseconds,
                baseline: rawP50, baselineName: "raw echo", target: .ratio(.atMost, 2),
                note: "\(calls) sequential calls, 1 connection"
            ),
            Measurement(
                benchmark: self.name, figure: "p99", value: guildP99, unit: .microseconds,
                baseline: rawP99, baselineName: "raw echo", target: nil
            ),
            Measurement(
                benchmark: self.name, figure: "p50, raw blocking client → guildd", value: Stats.percentile(sorted: rawClient, 50),
                unit: .microseconds, baseline: rawP50, baselineName: "raw echo", target: nil,
                note: "diagnostic: daemon cost without GuildClient; p99 "
                    + MeasurementUnit.microseconds.format(Stats.percentile(sorted: rawClient, 99))
            ),
        ]
    }

    /// Round-trip times in µs of sequential pings written and read on a blocking socket.
    static func rawPings(_ path: String, calls: Int, warmup: Int) throws -> [Double] {
        let fd = try RawSocket.connect(path)
        defer { close(fd) }
        RawSocket.setTimeout(fd, seconds: 10)
        var samples: [Double] = []
        samples.reserveCapacity(calls)
        var last: [UInt8] = []
        try RawSocket.pingLine.withUnsafeBytes { line in
            for index in 0..<(warmup + calls) {
                let start = monotonicNanos()
                try RawSocket.writeAll(fd, line)
                last = try RawSocket.readLine(fd)
                if index >= warmup { samples.append(Double(monotonicNanos() - start) / 1_000) }
            }
        }
        guard String(decoding: last, as: UTF8.self).contains("\"result\":\"pong\"") else {
            throw RawSocket.Failure(message: "unexpected ping reply: \(String(decoding: last, as: UTF8.self))")
        }
        return samples
    }
}

/// The raw baseline: a blocking echo server thread and a blocking client, both plain POSIX.
enum RawEcho {
    static let line: [UInt8] = Array(repeating: UInt8(ascii: "x"), count: 59) + [UInt8(ascii: "\n")]

    /// Round-trip times in µs of `calls` sequential 60-byte writes and reads.
    static func measure(path: String, calls: Int, warmup: Int) async throws -> [Double] {
        let listener = try RawSocket.listen(path)
        let server = Task {
            try await onThread("echo-server") { try Self.serve(listener) }
        }
        let result: Result<[Double], any Error>
        do {
            result = .success(try await onThread("echo-client") { try Self.client(path, calls: calls, warmup: warmup) })
        } catch {
            result = .failure(error)
        }
        // Wakes accept() if the client never connected; harmless otherwise.
        shutdown(listener, Int32(SHUT_RDWR))
        _ = try? await server.value
        close(listener)
        unlink(path)
        return try result.get()
    }

    private static func serve(_ listener: Int32) throws {
        let fd = accept(listener, nil, nil)
        guard fd >= 0 else { return }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
            if count < 0, errno == EINTR { continue }
            if count <= 0 { return }
            try buffer.withUnsafeBytes { try RawSocket.writeAll(fd, UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
        }
    }

    private static func client(_ path: String, calls: Int, warmup: Int) throws -> [Double] {
        let fd = try RawSocket.connect(path)
        defer { close(fd) }
        RawSocket.setTimeout(fd, seconds: 10)
        var reply = [UInt8](repeating: 0, count: Self.line.count)
        var samples: [Double] = []
        samples.reserveCapacity(calls)
        try Self.line.withUnsafeBytes { line in
            try reply.withUnsafeMutableBytes { reply in
                for _ in 0..<warmup {
                    try RawSocket.writeAll(fd, line)
                    try RawSocket.readExactly(fd, into: reply)
                }
                for _ in 0..<calls {
                    let start = monotonicNanos()
                    try RawSocket.writeAll(fd, line)
                    try RawSocket.readExactly(fd, into: reply)
                    samples.append(Double(monotonicNanos() - start) / 1_000)
                }
            }
        }
        guard reply == Self.line else { throw RawSocket.Failure(message: "echo returned different bytes") }
        return samples
    }
}

/// Connects, runs `body`, closes (also when `body` throws).
func withClient<T: Sendable>(_ path: String, _ body: (GuildClient) async throws -> T) async throws -> T {
    let client = try await GuildClient.connect(path: path)
    do {
        let result = try await body(client)
        await client.close()
        return result
    } catch {
        await client.close()
        throw error
    }
}
