import Foundation
import GuildClient
import GuildProtocol

#if canImport(Glibc)
import Glibc
#endif

/// Paths of the built products and the package.
enum Build {
    /// The directory holding the built executables (next to the test bundle).
    static let products: URL = {
        var url = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        while url.path != "/" {
            if FileManager.default.isExecutableFile(atPath: url.appendingPathComponent("guildd").path) { return url }
            url.deleteLastPathComponent()
        }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../.build/debug")
    }()

    static let guildd = products.appendingPathComponent("guildd").path
    static let guildctl = products.appendingPathComponent("guildctl").path
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
}

/// A scratch directory with a short path (Unix socket paths must stay under 108 bytes).
struct Scratch {
    let path: String
    init() throws {
        self.path = "/tmp/ge-\(UUID().uuidString.prefix(8).lowercased())"
        try FileManager.default.createDirectory(atPath: self.path, withIntermediateDirectories: true)
        chmod(self.path, 0o755)
    }
    var socket: String { self.path + "/s.sock" }
    var database: String { self.path + "/guild.sqlite" }
    func remove() { try? FileManager.default.removeItem(atPath: self.path) }
}

/// A running process (guildd, systemd-socket-activate, guildctl, python3). Its output goes to files, so
/// nothing ever blocks on a pipe.
final class Child: @unchecked Sendable {
    // @unchecked: `Process` is used from the test's task only; its termination is awaited by polling.
    let process = Process()
    private let outputPath = "/tmp/ge-out-\(UUID().uuidString)"

    init(_ executable: String, _ arguments: [String], environment: [String: String] = [:], currentDirectory: String? = nil) throws {
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

    var pid: Int32 { self.process.processIdentifier }

    func signal(_ signal: Int32) { kill(self.pid, signal) }

    /// Waits for exit; returns the exit status, or nil after `timeout` seconds.
    func wait(timeout: Double = 20) async -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while self.process.isRunning {
            if deadline.timeIntervalSinceNow < 0 { return nil }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return self.process.terminationStatus
    }

    /// What the process wrote to stdout so far.
    var stdout: String { (try? String(contentsOfFile: self.outputPath + ".out", encoding: .utf8)) ?? "" }
    /// What the process wrote to stderr so far.
    var stderr: String { (try? String(contentsOfFile: self.outputPath + ".err", encoding: .utf8)) ?? "" }

    /// Kills the process if it is still running (for `defer`).
    func terminate() {
        if self.process.isRunning { self.signal(SIGKILL) }
    }

    func stop() async {
        if self.process.isRunning {
            self.signal(SIGKILL)
            _ = await self.wait(timeout: 5)
        }
    }
}

/// Runs a command to completion; returns its status and output.
func run(
    _ executable: String,
    _ arguments: [String],
    environment: [String: String] = [:],
    currentDirectory: String? = nil,
    timeout: Double = 120
) async throws
    -> (status: Int32, stdout: String, stderr: String)
{
    let child = try Child(executable, arguments, environment: environment, currentDirectory: currentDirectory)
    let status = await child.wait(timeout: timeout) ?? -1
    if status == -1 { await child.stop() }
    return (status, child.stdout, child.stderr)
}

/// Starts guildd binding `scratch.socket` and waits until it answers.
func startDaemon(_ scratch: Scratch, _ extra: [String] = [], environment: [String: String] = [:]) async throws -> Child {
    let daemon = try Child(
        Build.guildd,
        ["--socket", scratch.socket, "--database", scratch.database, "--scrypt-log-n", "4", "--log-level", "warning"] + extra,
        environment: environment
    )
    try await waitUntilServing(scratch.socket)
    return daemon
}

/// Waits until a daemon answers `system.ping` on `socket`.
func waitUntilServing(_ socket: String, timeout: Double = 20) async throws {
    let deadline = Date().addingTimeInterval(timeout)
    while deadline.timeIntervalSinceNow > 0 {
        if let client = try? await GuildClient.connect(path: socket) {
            let pong = try? await client.call(SystemMethods.Ping.self)
            await client.close()
            if pong == "pong" { return }
        }
        try await Task.sleep(for: .milliseconds(20))
    }
    throw GuildClientError.connectFailed(path: socket, reason: "daemon did not start")
}

/// The first command of `/proc/PID/comm`.
func processName(_ pid: Int32) -> String {
    (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
}
