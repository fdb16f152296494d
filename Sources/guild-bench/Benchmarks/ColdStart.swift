import Foundation
import Glibc
import GuildHarness

/// Socket-activated cold start: `systemd-socket-activate -l SOCK guildd --database DB` listens; guildd is
/// exec'd on the first connection. Measured from the client's connect() + write of a ping line to the reply
/// line, with a fresh process per run. The database is created by an uncounted warm-up run, so migration is
/// not counted. The floor beside it is `guild-bench cold-echo` started the same way: a Swift executable of the
/// same build that answers the ping without doing anything else.
struct ColdStart: Benchmark {
    let name = "cold-start"
    let summary = "connect+ping to reply under systemd-socket-activate, fresh process per run"

    static let activator = "/usr/bin/systemd-socket-activate"

    func run(_ context: BenchContext) async throws -> [Measurement] {
        let database = context.path("cold.db")
        let samples = try await self.series(context, label: "default options", command: [context.guilddPath, "--database", database])
        // Diagnostic: guildd hashes a decoy password at start-up; with a cheap scrypt cost that time drops out.
        let cheap = try await self.series(
            context,
            label: "--scrypt-log-n 4",
            command: [context.guilddPath, "--database", database, "--scrypt-log-n", "4"]
        )
        let floor = try await self.series(context, label: "floor: guild-bench cold-echo", command: [GuildBench.executablePath, "cold-echo"])
        return [
            Measurement(
                benchmark: self.name,
                figure: "connect+ping → reply (median)",
                value: Stats.median(samples),
                unit: .milliseconds,
                baseline: Stats.median(floor),
                baselineName: "guild-bench cold-echo, same activator",
                target: .value(.below, 10),
                note: Format.spread(samples, unit: .milliseconds)
                    + "; the floor: a Swift executable of the same build that only answers the ping, "
                    + Format.spread(floor, unit: .milliseconds)
            ),
            Measurement(
                benchmark: self.name,
                figure: "same, guildd --scrypt-log-n 4",
                value: Stats.median(cheap),
                unit: .milliseconds,
                target: nil,
                note: "diagnostic: start-up without the cost of a default-strength scrypt hash; "
                    + Format.spread(cheap, unit: .milliseconds)
            ),
        ]
    }

    /// One uncounted warm-up (creates the database on the first series) and `runs` measured cold starts of
    /// `command` (the program and its arguments) under the activator.
    private func series(_ context: BenchContext, label: String, command: [String]) async throws -> [Double] {
        context.progress("  \(label):")
        var samples: [Double] = []
        for run in 0...context.runs {
            let socket = context.path("cold-\(run)-\(UUID().uuidString.prefix(8)).sock")
            unlink(socket)
            let daemon = try await Daemon.launch(
                name: "systemd-socket-activate",
                executable: Self.activator,
                arguments: ["-l", socket] + command,
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
                    context.progress(
                        "    warm-up (creates the database if missing): \(Format.decimal(milliseconds, digits: 1)) ms [\(before ?? "?") → \(after ?? "?")]"
                    )
                } else {
                    samples.append(milliseconds)
                    context.progress("    run \(run): \(Format.decimal(milliseconds, digits: 1)) ms")
                }
                if let before, before == after {
                    context.progress("    warning: process name did not change (\(before)); was guildd started on connect?")
                }
                await daemon.stop()
            } catch {
                await daemon.stop()
                throw error
            }
        }
        return samples
    }
}
