import Foundation
import Glibc
import GuildClient
import GuildProtocol

/// Sequential `system.ping` round trips over one GuildClient connection, against a raw Unix-socket echo of
/// a 60-byte line (blocking read/write, echo server on a thread of this process). A third series, pings
/// from a blocking raw client, separates the daemon's cost from GuildClient's.
///
/// The series are interleaved in chunks, so that changing load on the machine affects them alike.
struct PingLatency: Benchmark {
    let name = "ping-latency"
    let summary = "sequential system.ping round trips (p50/p99) vs a raw Unix-socket echo"

    func run(_ context: BenchContext) async throws -> [Measurement] {
        let calls = context.quick ? 3_000 : 20_000
        let warmup = max(calls / 10, 500)
        let chunk = max(calls / 20, 100)
        let daemon = try await context.sharedDaemon()
        let echo = try EchoServer.start(path: context.path("echo.sock"))
        context.progress(
            "  \(calls) round trips each after \(warmup) warm-up, interleaved in chunks of \(chunk): guild, raw echo, raw client → guildd"
        )

        let result: Result<(guild: [Double], echo: [Double], raw: [Double], unpinned: [Double]), any Error>
        do {
            result = .success(
                try await withClient(daemon.socketPath) { client in
                    let echoFD = try RawSocket.connect(echo.path)
                    defer { close(echoFD) }
                    let pingFD = try RawSocket.connect(daemon.socketPath)
                    defer { close(pingFD) }
                    RawSocket.setTimeout(echoFD, seconds: 10)
                    RawSocket.setTimeout(pingFD, seconds: 10)

                    let echoWorker = BlockingWorker(name: "echo-client")
                    defer { echoWorker.stop() }
                    let pingWorker = BlockingWorker(name: "raw-ping-client")
                    defer { pingWorker.stop() }

                    // The documented low-latency way to call: from an actor on the client's event loop.
                    let pinned = PinnedPinger(client: client)
                    _ = try await pinned.pings(count: warmup)
                    _ = try await Self.guildPings(client, count: warmup / 4)
                    _ = try await echoWorker.run { try Self.echoRoundTrips(echoFD, count: warmup) }
                    _ = try await pingWorker.run { try Self.rawPings(pingFD, count: warmup) }

                    var guild: [Double] = []
                    var unpinned: [Double] = []
                    var echoSamples: [Double] = []
                    var raw: [Double] = []
                    var done = 0
                    while done < calls {
                        let count = min(chunk, calls - done)
                        guild += try await pinned.pings(count: count)
                        unpinned += try await Self.guildPings(client, count: count / 4)
                        echoSamples += try await echoWorker.run { try Self.echoRoundTrips(echoFD, count: count) }
                        raw += try await pingWorker.run { try Self.rawPings(pingFD, count: count) }
                        done += count
                    }
                    return (guild.sorted(), echoSamples.sorted(), raw.sorted(), unpinned.sorted())
                }
            )
        } catch {
            result = .failure(error)
        }
        await echo.stop()
        let samples = try result.get()

        let guildP50 = Stats.percentile(sorted: samples.guild, 50)
        let guildP99 = Stats.percentile(sorted: samples.guild, 99)
        let echoP50 = Stats.percentile(sorted: samples.echo, 50)
        let echoP99 = Stats.percentile(sorted: samples.echo, 99)
        let unpinnedP50 = Stats.percentile(sorted: samples.unpinned, 50)
        let unpinnedP99 = Stats.percentile(sorted: samples.unpinned, 99)
        let rawP50 = Stats.percentile(sorted: samples.raw, 50)
        let rawP99 = Stats.percentile(sorted: samples.raw, 99)
        let micro = MeasurementUnit.microseconds
        context.progress(
            "  guild p50 \(micro.format(guildP50)), p99 \(micro.format(guildP99)); raw echo p50 \(micro.format(echoP50)), "
                + "p99 \(micro.format(echoP99)); raw client → guildd p50 \(micro.format(rawP50)), p99 \(micro.format(rawP99))"
        )
        return [
            Measurement(
                benchmark: self.name,
                figure: "p50",
                value: guildP50,
                unit: .microseconds,
                baseline: echoP50,
                baselineName: "raw echo",
                target: .ratio(.atMost, 2),
                note: "\(calls) sequential calls, 1 GuildClient connection, caller pinned to its event loop (GuildClient.executor)"
            ),
            Measurement(
                benchmark: self.name,
                figure: "p99",
                value: guildP99,
                unit: .microseconds,
                baseline: echoP99,
                baselineName: "raw echo",
                target: nil
            ),
            Measurement(
                benchmark: self.name,
                figure: "p50, GuildClient from an ordinary task",
                value: unpinnedP50,
                unit: .microseconds,
                baseline: echoP50,
                baselineName: "raw echo",
                target: nil,
                note: "diagnostic: \(samples.unpinned.count) calls with two thread hops each; p99 \(micro.format(unpinnedP99))"
            ),
            Measurement(
                benchmark: self.name,
                figure: "p50, raw blocking client → guildd",
                value: rawP50,
                unit: .microseconds,
                baseline: echoP50,
                baselineName: "raw echo",
                target: nil,
                note: "diagnostic: daemon cost without GuildClient; p99 \(micro.format(rawP99))"
            ),
        ]
    }

    /// Round-trip times in µs of `count` sequential pings through GuildClient.
    static func guildPings(_ client: GuildClient, count: Int) async throws -> [Double] {
        var samples: [Double] = []
        samples.reserveCapacity(count)
        for _ in 0..<count {
            let start = monotonicNanos()
            let pong = try await client.call(SystemMethods.Ping.self)
            samples.append(Double(monotonicNanos() - start) / 1_000)
            guard pong == "pong" else { throw DaemonError("system.ping returned \(pong)") }
        }
        return samples
    }

    static let echoLine: [UInt8] = Array(repeating: UInt8(ascii: "x"), count: 59) + [UInt8(ascii: "\n")]

    /// Round-trip times in µs of `count` sequential 60-byte writes and reads through the echo server.
    static func echoRoundTrips(_ fd: Int32, count: Int) throws -> [Double] {
        var reply = [UInt8](repeating: 0, count: Self.echoLine.count)
        var samples: [Double] = []
        samples.reserveCapacity(count)
        try Self.echoLine.withUnsafeBytes { line in
            try reply.withUnsafeMutableBytes { reply in
                for _ in 0..<count {
                    let start = monotonicNanos()
                    try RawSocket.writeAll(fd, line)
                    try RawSocket.readExactly(fd, into: reply)
                    samples.append(Double(monotonicNanos() - start) / 1_000)
                }
            }
        }
        guard reply == Self.echoLine else { throw RawSocket.Failure(message: "echo returned different bytes") }
        return samples
    }

    /// Round-trip times in µs of `count` sequential pings written and read on a blocking socket to guildd.
    static func rawPings(_ fd: Int32, count: Int) throws -> [Double] {
        var samples: [Double] = []
        samples.reserveCapacity(count)
        var last: [UInt8] = []
        try RawSocket.pingLine.withUnsafeBytes { line in
            for _ in 0..<count {
                let start = monotonicNanos()
                try RawSocket.writeAll(fd, line)
                last = try RawSocket.readLine(fd)
                samples.append(Double(monotonicNanos() - start) / 1_000)
            }
        }
        guard String(decoding: last, as: UTF8.self).contains("\"result\":\"pong\"") else {
            throw RawSocket.Failure(message: "unexpected ping reply: \(String(decoding: last, as: UTF8.self))")
        }
        return samples
    }
}

/// A blocking echo server on a thread of this process: accepts one connection and writes back what it reads.
final class EchoServer: Sendable {
    let path: String
    private let listener: Int32
    private let task: Task<Void, any Error>

    private init(path: String, listener: Int32, task: Task<Void, any Error>) {
        self.path = path
        self.listener = listener
        self.task = task
    }

    static func start(path: String) throws -> EchoServer {
        let listener = try RawSocket.listen(path)
        let task = Task {
            try await onThread("echo-server") { try Self.serve(listener) }
        }
        return EchoServer(path: path, listener: listener, task: task)
    }

    /// Ends once the client has closed its connection (or at once if it never connected).
    func stop() async {
        shutdown(self.listener, Int32(SHUT_RDWR))  // wakes accept() if nobody connected
        _ = try? await self.task.value
        close(self.listener)
        unlink(self.path)
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

/// Calls the client from its own event loop: no thread hop per round trip.
actor PinnedPinger {
    let client: GuildClient

    init(client: GuildClient) {
        self.client = client
    }

    nonisolated var unownedExecutor: UnownedSerialExecutor { self.client.executor.asUnownedSerialExecutor() }

    func pings(count: Int) async throws -> [Double] {
        var samples: [Double] = []
        samples.reserveCapacity(count)
        for _ in 0..<count {
            let start = monotonicNanos()
            let pong = try await self.client.call(SystemMethods.Ping.self)
            samples.append(Double(monotonicNanos() - start) / 1_000)
            guard pong == "pong" else { throw DaemonError("system.ping returned \(pong)") }
        }
        return samples
    }
}
