import Foundation
import GuildClient
import GuildHarness
import GuildProtocol

/// The built guildd as a child process, on the socket and database of a ``Scratch`` directory.
public enum RealDaemon {
    /// Starts guildd on `scratch.socket` and `scratch.database` with a cheap scrypt cost and warnings-only
    /// logging, plus the `extra` options and `environment`; returns once it answers `system.ping`, or
    /// throws with the tail of its stderr (having killed it).
    public static func start(_ scratch: Scratch, _ extra: [String] = [], environment: [String: String] = [:]) async throws -> Child {
        let daemon = try await Child(
            Build.guildd,
            ["--socket", scratch.socket, "--database", scratch.database, "--scrypt-log-n", "4", "--log-level", "warning"] + extra,
            environment: environment
        )
        do {
            try await Self.waitUntilServing(scratch.socket) {
                if let status = daemon.process.endedStatus { throw DaemonError("guildd exited with status \(status)") }
            }
        } catch {
            await daemon.stop()
            throw DaemonError("\(error); guildd's stderr ends:\n\(daemon.stderrTail())")
        }
        return daemon
    }

    /// Waits until a daemon answers `system.ping` on `socket`, up to `timeout` seconds (a minute: only a hang
    /// should fail it; a debug guildd among dozens starting on a loaded machine has taken over 20 s); `check`
    /// runs before every try (e.g. to stop waiting for a process that exited) and may throw.
    public static func waitUntilServing(_ socket: String, timeout: Double = 60, check: () throws -> Void = {}) async throws {
        let deadline = Date().addingTimeInterval(timeout)
        while deadline.timeIntervalSinceNow > 0 {
            try check()
            if let client = try? await GuildClient.connect(path: socket) {
                let pong = try? await client.call(SystemMethods.Ping.self)
                await client.close()
                if pong == "pong" { return }
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw GuildClientError.connectFailed(path: socket, reason: "daemon did not start")
    }
}
