import Foundation
import Glibc
import Synchronization

/// Resident memory of a process, from `/proc/PID/status`.
struct MemoryStatus: Sendable {
    /// VmRSS: resident set size now.
    var rssBytes: Int
    /// VmHWM: peak resident set size so far.
    var hwmBytes: Int

    var rssMiB: Double { Double(self.rssBytes) / 1_048_576 }
    var hwmMiB: Double { Double(self.hwmBytes) / 1_048_576 }

    static func read(pid: Int32) throws -> MemoryStatus {
        let text = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        func field(_ name: String) -> Int? {
            for line in text.split(separator: "\n") where line.hasPrefix(name + ":") {
                let parts = line.dropFirst(name.count + 1).split(whereSeparator: { $0 == " " || $0 == "\t" })
                guard let number = parts.first.flatMap({ Int($0) }) else { return nil }
                let unit = parts.count > 1 ? parts[1].lowercased() : "kb"
                return unit == "kb" ? number * 1024 : number
            }
            return nil
        }
        guard let rss = field("VmRSS"), let hwm = field("VmHWM") else {
            throw DaemonError("no VmRSS/VmHWM in /proc/\(pid)/status (process gone?)")
        }
        return MemoryStatus(rssBytes: rss, hwmBytes: hwm)
    }
}

/// CPU time (user + system) a process has used, from `/proc/PID/stat`; pid nil means this process.
func cpuSeconds(pid: Int32?) -> Double? {
    let path = pid.map { "/proc/\($0)/stat" } ?? "/proc/self/stat"
    guard let text = try? String(contentsOfFile: path, encoding: .utf8),
        let close = text.lastIndex(of: ")")
    else { return nil }
    // Fields after "(comm)": state is field 3; utime and stime are fields 14 and 15.
    let fields = text[text.index(after: close)...].split(separator: " ")
    guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
    return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
}

/// Measures how many CPU cores the daemon and the bench used during some work.
struct CPUMeter {
    let daemonPID: Int32
    private let start = monotonicNanos()
    private let daemonStart: Double?
    private let selfStart: Double?

    init(daemonPID: Int32) {
        self.daemonPID = daemonPID
        self.daemonStart = cpuSeconds(pid: daemonPID)
        self.selfStart = cpuSeconds(pid: nil)
    }

    /// "guildd 0.95 cores, bench 1.02 cores" since init.
    func summary() -> String {
        let wall = Double(monotonicNanos() - self.start) / 1e9
        func cores(_ start: Double?, _ end: Double?) -> String {
            guard let start, let end, wall > 0 else { return "?" }
            return Format.decimal((end - start) / wall, digits: 2)
        }
        return "CPU: guildd \(cores(self.daemonStart, cpuSeconds(pid: self.daemonPID))) cores, "
            + "bench \(cores(self.selfStart, cpuSeconds(pid: nil))) cores"
    }
}

struct DaemonError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A child process (guildd, or systemd-socket-activate that becomes guildd), logging to a file in the work
/// directory. Every launched process is tracked in ``ChildProcesses`` and terminated at exit.
final class Daemon: Sendable {
    let name: String
    let process: Process
    let socketPath: String
    let logPath: String

    var pid: Int32 { self.process.processIdentifier }

    private init(name: String, process: Process, socketPath: String, logPath: String) {
        self.name = name
        self.process = process
        self.socketPath = socketPath
        self.logPath = logPath
    }

    /// Starts `executable` with `arguments`; stdout and stderr go to `logPath` (appended).
    static func launch(
        name: String,
        executable: String,
        arguments: [String],
        socketPath: String,
        logPath: String
    ) throws -> Daemon {
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
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        for key in ["LISTEN_FDS", "LISTEN_PID", "LISTEN_FDNAMES", "NOTIFY_SOCKET"] { environment[key] = nil }
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = log
        process.standardError = log
        try ChildProcesses.shared.launch(process)
        try? log.close()
        return Daemon(name: name, process: process, socketPath: socketPath, logPath: logPath)
    }

    /// Throws (with the log's tail) when the process has exited.
    func checkRunning() throws {
        guard self.process.isRunning else {
            throw DaemonError(
                "\(self.name) exited with status \(self.process.terminationStatus); log \(self.logPath):\n\(self.logTail())"
            )
        }
    }

    /// Waits until the socket answers `system.ping` with "pong".
    func waitUntilReady(timeout: Double = 20) async throws {
        let deadline = monotonicNanos() + UInt64(timeout * 1e9)
        var lastError: (any Error)?
        while monotonicNanos() < deadline {
            try self.checkRunning()
            if FileManager.default.fileExists(atPath: self.socketPath) {
                do {
                    let path = self.socketPath
                    _ = try await onThread("ready-probe") { try RawSocket.ping(path, timeout: 5) }
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
    func waitForSocketFile(timeout: Double = 10) async throws {
        let deadline = monotonicNanos() + UInt64(timeout * 1e9)
        while !FileManager.default.fileExists(atPath: self.socketPath) {
            try self.checkRunning()
            guard monotonicNanos() < deadline else {
                throw DaemonError("\(self.name): no socket file \(self.socketPath) after \(timeout) s; log:\n\(self.logTail())")
            }
            try await Task.sleep(for: .milliseconds(1))
        }
    }

    /// VmRSS and VmHWM now.
    func memory() throws -> MemoryStatus {
        try self.checkRunning()
        return try MemoryStatus.read(pid: self.pid)
    }

    /// The process name the kernel shows (`/proc/PID/comm`), e.g. to tell whether an exec happened.
    func command() -> String? {
        (try? String(contentsOfFile: "/proc/\(self.pid)/comm", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// SIGTERM, then SIGKILL after `timeout` seconds; waits for the exit.
    func stop(timeout: Double = 5) async {
        await ChildProcesses.shared.stop(self.process, timeout: timeout)
    }

    /// The last lines of the log.
    func logTail(lines: Int = 20) -> String {
        guard let text = try? String(contentsOfFile: self.logPath, encoding: .utf8) else { return "(no log)" }
        return text.split(separator: "\n", omittingEmptySubsequences: false).suffix(lines).joined(separator: "\n")
    }
}

/// Every process the bench started and has not yet seen exit, so they can be terminated on every way out
/// (normal end, error, SIGINT/SIGTERM/SIGHUP).
final class ChildProcesses: Sendable {
    static let shared = ChildProcesses()

    private struct State {
        var processes: [Int32: Process] = [:]
        /// Set by ``terminateAll(timeout:)``: the bench is shutting down, start nothing new.
        var closed = false
    }

    private let state = Mutex(State())

    func launch(_ process: Process) throws {
        try self.state.withLock { state in
            guard !state.closed else { throw DaemonError("shutting down; not starting \(process.executableURL?.path ?? "process")") }
            try process.run()
            state.processes[process.processIdentifier] = process
        }
    }

    /// SIGTERM, except for a systemd-socket-activate that has not exec'd guildd yet: it blocks SIGTERM while
    /// it waits for a connection, and has nothing to lose, so it gets SIGKILL.
    static func stopSignal(_ pid: Int32) -> Int32 {
        let command = (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines)
        return command == "systemd-socket-" ? SIGKILL : SIGTERM
    }

    func stop(_ process: Process, timeout: Double) async {
        if process.isRunning {
            kill(process.processIdentifier, Self.stopSignal(process.processIdentifier))
            let deadline = monotonicNanos() + UInt64(timeout * 1e9)
            while process.isRunning, monotonicNanos() < deadline {
                try? await Task.sleep(for: .milliseconds(2))
            }
            if process.isRunning {
                Log.progress("  pid \(process.processIdentifier) ignored SIGTERM for \(timeout) s; sending SIGKILL")
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
            }
        }
        _ = self.state.withLock { $0.processes.removeValue(forKey: process.processIdentifier) }
    }

    /// For the final cleanup and signal handling: SIGTERM to all, wait up to `timeout`, SIGKILL the rest; no
    /// process can be launched afterwards.
    func terminateAll(timeout: Double = 5) {
        let all = self.state.withLock { state in
            state.closed = true
            let all = Array(state.processes.values)
            state.processes.removeAll()
            return all
        }
        for process in all where process.isRunning { kill(process.processIdentifier, Self.stopSignal(process.processIdentifier)) }
        let deadline = monotonicNanos() + UInt64(timeout * 1e9)
        while all.contains(where: { $0.isRunning }), monotonicNanos() < deadline { usleep(2_000) }
        for process in all where process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}
