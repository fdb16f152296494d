import Foundation
import GuildHarness

#if canImport(Glibc)
import Glibc
#endif

/// A running process (guildd, systemd-socket-activate, guildctl, python3). Its output goes to files, so
/// nothing ever blocks on a pipe.
public final class Child: Sendable {
    /// The process.
    public let process: ChildProcess
    private let outputPath: String

    /// Starts `executable` with `arguments`, in this process's environment plus `environment`.
    public init(
        _ executable: String,
        _ arguments: [String],
        environment: [String: String] = [:],
        currentDirectory: String? = nil
    ) async throws {
        let outputPath = "/tmp/ge-out-\(UUID().uuidString)"
        self.outputPath = outputPath
        self.process = try await ChildProcess.spawn(
            executable,
            arguments,
            environment: environment,
            workingDirectory: currentDirectory,
            output: .file(outputPath + ".out"),
            error: .file(outputPath + ".err")
        )
    }

    deinit {
        try? FileManager.default.removeItem(atPath: self.outputPath + ".out")
        try? FileManager.default.removeItem(atPath: self.outputPath + ".err")
    }

    /// How long a command run to completion may take before it is taken for hung: 20 minutes, under the
    /// end-to-end suites' 30-minute limit. Only a hang reaches it: on a loaded 2-CPU machine the end-to-end phase on
    /// PostgreSQL took more than 120 s (the earlier bound) for a Python script of a hundred writes.
    public static let runTimeout: Double = 1_200

    /// Runs a command to completion (SIGKILL after `timeout` seconds, status -1); returns its status and output.
    public static func run(
        _ executable: String,
        _ arguments: [String],
        environment: [String: String] = [:],
        currentDirectory: String? = nil,
        timeout: Double = Child.runTimeout
    ) async throws -> (status: Int32, stdout: String, stderr: String) {
        try await ChildProcess.run(
            executable,
            arguments,
            environment: environment.mapValues { Optional($0) },
            workingDirectory: currentDirectory,
            timeout: timeout
        )
    }

    /// The process id.
    public var pid: Int32 { self.process.pid }

    /// Whether the process still runs.
    public var isRunning: Bool { self.process.isRunning }

    /// The process name the kernel shows (`/proc/PID/comm`); empty once the process is gone.
    public var command: String { ProcFS.command(pid: self.pid) ?? "" }

    /// Sends `signal` to the process.
    public func signal(_ signal: Int32) { self.process.signal(signal) }

    /// Waits for exit; returns the exit status (or the signal that ended it), or nil after `timeout` seconds: a
    /// minute unless given, as every wait of the suites, since it only catches a hang (see ``Eventually``).
    public func wait(timeout: Double = Double(Eventually.defaultTimeout.components.seconds)) async -> Int32? {
        await self.process.wait(timeout: timeout)
    }

    /// What the process wrote to stdout so far.
    public var stdout: String { (try? String(contentsOfFile: self.outputPath + ".out", encoding: .utf8)) ?? "" }
    /// What the process wrote to stderr so far.
    public var stderr: String { (try? String(contentsOfFile: self.outputPath + ".err", encoding: .utf8)) ?? "" }

    /// The last `lines` lines of stderr (where guildd logs).
    public func stderrTail(lines: Int = 20) -> String {
        self.stderr.split(separator: "\n", omittingEmptySubsequences: false).suffix(lines).joined(separator: "\n")
    }

    /// Kills the process if it is still running (for `defer`).
    public func terminate() {
        self.signal(SIGKILL)
    }

    /// Kills the process if it is still running and waits up to 5 seconds for it to end.
    public func stop() async {
        if !self.process.hasEnded {
            self.signal(SIGKILL)
            _ = await self.wait(timeout: 5)
        }
    }
}
