import Foundation
import GuildHarness

#if canImport(Glibc)
import Glibc
#endif

/// A running process (guildd, systemd-socket-activate, guildctl, python3). Its output goes to files, so
/// nothing ever blocks on a pipe.
public final class Child: @unchecked Sendable {
    // @unchecked: `Process` is used from the test's task only; its termination is awaited by polling.
    /// The process.
    public let process = Process()
    private let outputPath = "/tmp/ge-out-\(UUID().uuidString)"

    /// Starts `executable` with `arguments`, in this process's environment plus `environment`.
    public init(
        _ executable: String,
        _ arguments: [String],
        environment: [String: String] = [:],
        currentDirectory: String? = nil
    ) throws {
        self.process.executableURL = URL(fileURLWithPath: executable)
        self.process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        for (key, value) in environment { env[key] = value }
        self.process.environment = env
        if let currentDirectory { self.process.currentDirectoryURL = URL(fileURLWithPath: currentDirectory) }
        _ = FileManager.default.createFile(atPath: self.outputPath + ".out", contents: nil)
        _ = FileManager.default.createFile(atPath: self.outputPath + ".err", contents: nil)
        self.process.standardOutput = FileHandle(forWritingAtPath: self.outputPath + ".out")
        self.process.standardError = FileHandle(forWritingAtPath: self.outputPath + ".err")
        self.process.standardInput = FileHandle.nullDevice
        try self.process.run()
    }

    deinit {
        try? FileManager.default.removeItem(atPath: self.outputPath + ".out")
        try? FileManager.default.removeItem(atPath: self.outputPath + ".err")
    }

    /// Runs a command to completion (SIGKILL after `timeout` seconds, status -1); returns its status and output.
    public static func run(
        _ executable: String,
        _ arguments: [String],
        environment: [String: String] = [:],
        currentDirectory: String? = nil,
        timeout: Double = 120
    ) async throws -> (status: Int32, stdout: String, stderr: String) {
        let child = try Child(executable, arguments, environment: environment, currentDirectory: currentDirectory)
        let status = await child.wait(timeout: timeout) ?? -1
        if status == -1 { await child.stop() }
        return (status, child.stdout, child.stderr)
    }

    /// The process id.
    public var pid: Int32 { self.process.processIdentifier }

    /// The process name the kernel shows (`/proc/PID/comm`); empty once the process is gone.
    public var command: String { ProcFS.command(pid: self.pid) ?? "" }

    /// Sends `signal` to the process.
    public func signal(_ signal: Int32) { kill(self.pid, signal) }

    /// Waits for exit; returns the exit status, or nil after `timeout` seconds.
    public func wait(timeout: Double = 20) async -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            // Not `isRunning` alone: Foundation may notice an exit late (see `Process.endedStatus`).
            if let status = self.process.endedStatus { return status }
            if deadline.timeIntervalSinceNow < 0 { return nil }
            try? await Task.sleep(for: .milliseconds(10))
        }
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
        if !self.process.hasEnded { self.signal(SIGKILL) }
    }

    /// Kills the process if it is still running and waits up to 5 seconds for it to end.
    public func stop() async {
        if !self.process.hasEnded {
            self.signal(SIGKILL)
            _ = await self.wait(timeout: 5)
        }
    }
}
