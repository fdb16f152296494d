import Foundation
import Glibc

/// A daemon child process (guildd, or systemd-socket-activate that becomes guildd), logging stdout and stderr
/// to one file. Every launched process is tracked in ``ChildProcesses`` and terminated at exit.
public final class Daemon: Sendable {
    /// A name for messages, e.g. "guildd (fanout)".
    public let name: String
    /// The running process.
    public let process: ChildProcess
    /// The Unix socket the daemon serves on.
    public let socketPath: String
    /// The file stdout and stderr go to.
    public let logPath: String

    /// The process id.
    public var pid: Int32 { self.process.pid }

    private init(name: String, process: ChildProcess, socketPath: String, logPath: String) {
        self.name = name
        self.process = process
        self.socketPath = socketPath
        self.logPath = logPath
    }

    /// Starts `executable` with `arguments`; stdout and stderr go to `logPath` (appended, after a line naming
    /// the command). The environment is this process's without systemd's socket-activation and notify
    /// variables, plus `environment`.
    public static func launch(
        name: String,
        executable: String,
        arguments: [String],
        environment: [String: String] = [:],
        socketPath: String,
        logPath: String
    ) async throws -> Daemon {
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw DaemonError("\(executable) is not an executable file")
        }
        if !FileManager.default.fileExists(atPath: logPath) {
            _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        }
        guard let log = FileHandle(forWritingAtPath: logPath) else {
            throw DaemonError("cannot open \(logPath)")
        }
        log.seekToEndOfFile()
        log.write(Data("--- \(executable) \(arguments.joined(separator: " "))\n".utf8))
        try? log.close()
        var variables: [String: String?] = [:]
        for key in ["LISTEN_FDS", "LISTEN_PID", "LISTEN_FDNAMES", "NOTIFY_SOCKET"] { variables[key] = .some(nil) }
        for (key, value) in environment { variables[key] = value }
        let process = try await ChildProcesses.shared.launch(
            executable,
            arguments,
            environment: variables,
            output: .file(logPath),
            error: .file(logPath)
        )
        return Daemon(name: name, process: process, socketPath: socketPath, logPath: logPath)
    }

    /// Throws (with the log's tail) when the process has exited.
    public func checkRunning() throws {
        if let status = self.process.endedStatus {
            throw DaemonError("\(self.name) exited with status \(status); log \(self.logPath):\n\(self.logTail())")
        }
    }

    /// Waits until the socket answers `system.ping` with "pong".
    public func waitUntilReady(timeout: Double = 20) async throws {
        let deadline = Deadline(seconds: timeout)
        var lastError: (any Error)?
        while !deadline.hasPassed {
            try self.checkRunning()
            if FileManager.default.fileExists(atPath: self.socketPath) {
                do {
                    try await SocketProbe.ping(self.socketPath, timeout: 5)
                    return
                } catch {
                    lastError = error
                }
            }
            try await Task.sleep(for: .milliseconds(5))
        }
        throw DaemonError(
            "\(self.name) not ready after \(timeout) s (\(lastError.map { "\($0)" } ?? "no socket file")); log:\n\(self.logTail())"
        )
    }

    /// Waits until the socket file exists (for `systemd-socket-activate`, which only listens).
    public func waitForSocketFile(timeout: Double = 10) async throws {
        let deadline = Deadline(seconds: timeout)
        while !FileManager.default.fileExists(atPath: self.socketPath) {
            try self.checkRunning()
            guard !deadline.hasPassed else {
                throw DaemonError("\(self.name): no socket file \(self.socketPath) after \(timeout) s; log:\n\(self.logTail())")
            }
            try await Task.sleep(for: .milliseconds(1))
        }
    }

    /// VmRSS and VmHWM now.
    public func memory() throws -> MemoryStatus {
        try self.checkRunning()
        return try MemoryStatus.read(pid: self.pid)
    }

    /// The process name the kernel shows (`/proc/PID/comm`), e.g. to tell whether an exec happened.
    public func command() -> String? {
        ProcFS.command(pid: self.pid)
    }

    /// SIGTERM, then SIGKILL after `timeout` seconds; waits for the exit.
    public func stop(timeout: Double = 5) async {
        await ChildProcesses.shared.stop(self.process, timeout: timeout)
    }

    /// The last lines of the log.
    public func logTail(lines: Int = 20) -> String {
        guard let text = try? String(contentsOfFile: self.logPath, encoding: .utf8) else { return "(no log)" }
        return text.split(separator: "\n", omittingEmptySubsequences: false).suffix(lines).joined(separator: "\n")
    }
}
