import Foundation
import Glibc

/// Socket-activated cold start: `systemd-socket-activate -l SOCK guildd --database DB` listens; guildd is
/// exec'd on the first connection. Measured from the client's connect() + write of a ping line to the reply
/// line, with a fresh process per run. The database is created by an uncounted warm-up run, so migration is
/// not counted.
struct ColdStart: Benchmark {
    let name = "cold-start"
    let summary = "connect+ping to reply under systemd-socket-activate, fresh process per run"

    static let activator = "/usr/bin/systemd-socket-activate"

    func run(_ context: BenchContext) async throws -> [Measurement] {
        let database = context.path("cold.db")
        var samples: [Double] = []
        for run in 0...context.runs {
            let socket = context.path("cold-\(run).sock")
            unlink(socket)
            let daemon = try Daemon.launch(
                name: "systemd-socket-activate",
                executable: Self.activator,
                arguments: ["-l", socket, context.guilddPath, "--database", database],
                socketPath: socket,
                logPath: context.path("cold.log")
            )
            do {
                try await daemon.waitForSocketFile()
                // The file appears at bind(); give listen() a moment. guildd is not started until we connect.
                try await Task.sleep(for: .milliseconds(50))
                let before = daemon.command()
                let milliseconds = try await onThread("cold-start-client") { () throws -> Double in
                    let start = monotonicNanos()
                    let fd = try RawSocket.connect(socket)
                    defer { close(fd) }
                    RawSocket.setTimeout(fd, seconds: 20)
                    try RawSocket.pingLine.withUnsafeBytes { try RawSocket.writeAll(fd, $0) }
                    let reply = try RawSocket.readLine(fd)
                    let elapsed = Double(monotonicNanos() - start) / 1e6
                    let text = String(decoding: reply, as: UTF8.self)
                    guard text.contains("\"result\":\"pong\"") else {
                        throw RawSocket.Failure(message: "unexpected ping reply: \(text)")
                    }
                    return elapsed
                }
                let after = daemon.command()
                if run == 0 {
                    context.progress("  warm-up (creates the database): \(Format.decimal(milliseconds, digits: 1)) ms [\(before ?? "?") → \(after ?? "?")]")
                } else {
                    samples.append(milliseconds)
                    context.progress("  run \(run): \(Format.decimal(milliseconds, digits: 1)) ms")
                }
                if let before, before == after {
                    context.progress("  warning: process name did not change (\(before)); was guildd started on connect?")
                }
                await daemon.stop()
            } catch {
                await daemon.stop()
                throw error
            }
        }
        return [
            Measurement(
                benchmark: self.name, figure: "connect+ping → reply (median)", value: Stats.median(samples),
                unit: .milliseconds, target: .value(.below, 50),
                note: Format.spread(samples, unit: .milliseconds)
            ),
        ]
    }
}
