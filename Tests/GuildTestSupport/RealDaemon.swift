import Foundation
import GuildHarness

/// The built guildd as a child process, on the socket and database of a ``Scratch`` directory.
public enum RealDaemon {
    /// Starts guildd on `scratch.socket` and `scratch.database` with a cheap scrypt cost and warnings-only
    /// logging, plus the `extra` options and `environment`; returns once it answers `system.ping`, or
    /// throws with the tail of its stderr (having killed it).
    public static func start(_ scratch: Scratch, _ extra: [String] = [], environment: [String: String] = [:]) async throws -> Child {
        let daemon = try Child(
            Build.guildd,
            ["--socket", scratch.socket, "--database", scratch.database, "--scrypt-log-n", "4", "--log-level", "warning"] + extra,
            environment: environment
        )
        do {
            try await SocketProbe.waitUntilServing(scratch.socket) {
                guard daemon.process.isRunning else { throw DaemonError("guildd exited with status \(daemon.process.terminationStatus)") }
            }
        } catch {
            await daemon.stop()
            throw DaemonError("\(error); guildd's stderr ends:\n\(daemon.stderr.split(separator: "\n").suffix(20).joined(separator: "\n"))")
        }
        return daemon
    }

    /// Waits until a daemon answers `system.ping` on `socket`.
    public static func waitUntilServing(_ socket: String, timeout: Double = 20) async throws {
        try await SocketProbe.waitUntilServing(socket, timeout: timeout)
    }
}
