import Foundation
import Glibc
import GuildClient
import GuildHarness
import GuildProtocol

/// Sequential `system.ping` round trips against a raw Unix-socket echo of a 60-byte line (blocking
/// read/write, echo server on a thread of this process), and against swift-nio's own floor: NIO's echo example
/// in a process of its own, as guildd is (``NIOEcho``), which is guildd's transport without guildd.
///
/// The target row sends the pings from the same blocking raw client the echo baseline uses, so the only
/// thing that differs between the two is the server: that ratio is guildd's own cost, its transport included
/// (the swift-nio echo row is the transport's share). GuildClient's round trips (from a caller pinned to its
/// event loop, and from an ordinary task) are reported beside it.
///
/// On a VM, waking an idle vCPU costs tens of µs, and whether a round trip needs such a wake-up depends on
/// where the scheduler puts the threads, not on the code: so every series is measured twice, once on all
/// CPUs and once with the bench, the NIO echo and guildd pinned to one CPU (no cross-CPU wake-ups at all). The series are
/// interleaved in chunks, so that changing load on the machine affects them alike.
struct PingLatency: Benchmark {
    let name = "ping-latency"
    let summary = "sequential system.ping round trips (p50/p99) vs a raw Unix-socket echo"

    /// Sorted round-trip times (µs) of each series.
    struct Series {
        var guild: [Double] = []
        var unpinned: [Double] = []
        var echo: [Double] = []
        var nioEcho: [Double] = []
        var raw: [Double] = []
    }

    func run(_ context: BenchContext) async throws -> [Measurement] {
        let calls = context.quick ? 3_000 : 20_000
        let daemon = try await context.sharedDaemon()
        let echo = try EchoServer.start(path: context.path("echo.sock"))
        let nioEcho: Daemon
        do {
            nioEcho = try await NIOEcho.launch(socket: context.path("nio-echo.sock"), logPath: context.path("nio-echo.log"))
        } catch {
            await echo.stop()
            throw error
        }
        context.progress("  \(calls) round trips per series, interleaved in chunks: raw client → echo, → swift-nio echo, → guildd; GuildClient")

        let result: Result<(all: Series, one: Series), any Error>
        do {
            result = .success(
                try await withClient(daemon.socketPath) { client in
                    let echoFD = try RawSocket.connect(echo.path)
                    defer { close(echoFD) }
                    let nioEchoFD = try RawSocket.connect(nioEcho.socketPath)
                    defer { close(nioEchoFD) }
                    let pingFD = try RawSocket.connect(daemon.socketPath)
                    defer { close(pingFD) }
                    RawSocket.setTimeout(echoFD, seconds: 10)
                    RawSocket.setTimeout(nioEchoFD, seconds: 10)
                    RawSocket.setTimeout(pingFD, seconds: 10)
                    let probe = Probe(client: client, echoFD: echoFD, nioEchoFD: nioEchoFD, pingFD: pingFD)
                    defer { probe.stop() }

                    let all = try await probe.series(calls: calls)
                    context.progress("  all CPUs: " + Self.describe(all))
                    let pinned = try await Affinity.pin(pids: [getpid(), daemon.pid, nioEcho.pid], cpu: 0)
                    let one: Series
                    do {
                        one = try await probe.series(calls: calls / 2)
                    } catch {
                        await pinned.restore()
                        throw error
                    }
                    await pinned.restore()
                    context.progress("  one CPU:  " + Self.describe(one))
                    return (all, one)
                }
            )
        } catch {
            result = .failure(error)
        }
        await echo.stop()
        await nioEcho.stop()
        let (all, one) = try result.get()

        let micro = MeasurementUnit.microseconds
        func p(_ samples: [Double], _ percentile: Double) -> Double { Stats.percentile(sorted: samples, percentile) }
        func row(
            _ figure: String,
            _ samples: [Double],
            _ baseline: [Double],
            _ percentile: Double,
            target: Target? = nil,
            note: String? = nil
        )
            -> Measurement
        {
            Measurement(
                benchmark: self.name,
                figure: figure,
                value: p(samples, percentile),
                unit: micro,
                baseline: p(baseline, percentile),
                baselineName: "raw echo",
                target: target,
                note: note
            )
        }
        return [
            row(
                "p50, raw client → guildd",
                all.raw,
                all.echo,
                50,
                target: .ratio(.atMost, 1.3),
                note: "\(calls) sequential pings from the blocking client the echo baseline uses: guildd's own cost"
            ),
            row("p99, raw client → guildd", all.raw, all.echo, 99),
            row(
                "p50, raw client → swift-nio echo",
                all.nioEcho,
                all.echo,
                50,
                note: "guildd's transport without guildd: NIO's echo example, one event loop, its own process; p99 "
                    + micro.format(p(all.nioEcho, 99))
            ),
            row(
                "p50, GuildClient on its event loop",
                all.guild,
                all.echo,
                50,
                note: "caller pinned to GuildClient.executor; p99 \(micro.format(p(all.guild, 99)))"
            ),
            row(
                "p50, GuildClient from an ordinary task",
                all.unpinned,
                all.echo,
                50,
                note: "\(all.unpinned.count) calls with two thread hops each; p99 \(micro.format(p(all.unpinned, 99)))"
            ),
            row(
                "p50 on one CPU, raw client → guildd",
                one.raw,
                one.echo,
                50,
                note: "bench and guildd pinned to CPU 0: no cross-CPU wake-ups; p99 \(micro.format(p(one.raw, 99)))"
            ),
            row(
                "p50 on one CPU, raw client → swift-nio echo",
                one.nioEcho,
                one.echo,
                50,
                note: "p99 \(micro.format(p(one.nioEcho, 99)))"
            ),
            row(
                "p50 on one CPU, GuildClient on its event loop",
                one.guild,
                one.echo,
                50,
                note: "p99 \(micro.format(p(one.guild, 99)))"
            ),
        ]
    }

    static func describe(_ series: Series) -> String {
        let micro = MeasurementUnit.microseconds
        func pair(_ samples: [Double]) -> String {
            "p50 \(micro.format(Stats.percentile(sorted: samples, 50))), p99 \(micro.format(Stats.percentile(sorted: samples, 99)))"
        }
        return "echo \(pair(series.echo)); NIO echo \(pair(series.nioEcho)); raw → guildd \(pair(series.raw)); GuildClient \(pair(series.guild)); "
            + "GuildClient unpinned \(pair(series.unpinned))"
    }

    /// The connections and threads the series run on.
    struct Probe {
        let client: GuildClient
        let echoFD: Int32
        let nioEchoFD: Int32
        let pingFD: Int32
        let echoWorker = BlockingWorker(name: "echo-client")
        let pingWorker = BlockingWorker(name: "raw-ping-client")
        let pinned: PinnedPinger

        init(client: GuildClient, echoFD: Int32, nioEchoFD: Int32, pingFD: Int32) {
            self.client = client
            self.echoFD = echoFD
            self.nioEchoFD = nioEchoFD
            self.pingFD = pingFD
            self.pinned = PinnedPinger(client: client)
        }

        func stop() {
            self.echoWorker.stop()
            self.pingWorker.stop()
        }

        /// `calls` round trips per series after a tenth as many to warm up, interleaved in chunks.
        func series(calls: Int) async throws -> Series {
            let chunk = max(calls / 20, 100)
            let (echoFD, nioEchoFD, pingFD) = (self.echoFD, self.nioEchoFD, self.pingFD)
            var series = Series()
            var done = -max(calls / 10, 500)  // the warm-up rounds are not kept
            while done < calls {
                let count = min(chunk, calls - max(done, 0))
                let echo = try await self.echoWorker.run { try PingLatency.echoRoundTrips(echoFD, count: count) }
                let nioEcho = try await self.echoWorker.run { try PingLatency.echoRoundTrips(nioEchoFD, count: count) }
                let raw = try await self.pingWorker.run { try PingLatency.rawPings(pingFD, count: count) }
                let guild = try await self.pinned.pings(count: count)
                let unpinned = try await PingLatency.guildPings(self.client, count: count / 4)
                if done >= 0 {
                    series.echo += echo
                    series.nioEcho += nioEcho
                    series.raw += raw
                    series.guild += guild
                    series.unpinned += unpinned
                }
                done += count
            }
            series.echo.sort()
            series.nioEcho.sort()
            series.raw.sort()
            series.guild.sort()
            series.unpinned.sort()
            return series
        }
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

/// A blocking echo server in this process: the floor a Unix socket allows. It accepts connections until
/// stopped, each served on its own thread, and writes back exactly what it reads (one `read`, one `write`:
/// pipelined lines are echoed in the same batches they arrive in).
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
            try await onThread("echo-server") { Self.acceptLoop(listener) }
        }
        return EchoServer(path: path, listener: listener, task: task)
    }

    /// Stops accepting; connections still open end when their client closes them.
    func stop() async {
        shutdown(self.listener, Int32(SHUT_RDWR))  // wakes accept()
        _ = try? await self.task.value
        close(self.listener)
        unlink(self.path)
    }

    private static func acceptLoop(_ listener: Int32) {
        while true {
            let fd = accept(listener, nil, nil)
            if fd < 0 {
                if errno == EINTR { continue }
                return
            }
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            let thread = Thread { Self.serve(fd) }
            thread.name = "echo-connection"
            thread.start()
        }
    }

    private static func serve(_ fd: Int32) {
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
            if count < 0, errno == EINTR { continue }
            if count <= 0 { return }
            do {
                try buffer.withUnsafeBytes { try RawSocket.writeAll(fd, UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
            } catch {
                return
            }
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
