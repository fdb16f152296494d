import Foundation
import GuildHarness

/// A throwaway PostgreSQL server for the `postgres` benchmark, started and stopped with the repository's
/// `scripts/postgres` (found next to the build directory guild-bench runs from, or in the current directory).
final class PostgresServer: Sendable {
    let directory: String
    let url: String
    private let script: String

    /// Starts a server in a directory of its own under /tmp (the server runs as `postgres` when guild-bench
    /// runs as root, and the work directory is private to root).
    init() throws {
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        // .build/<configuration>/guild-bench -> the repository root.
        let nearBuild = executable.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("scripts/postgres").path
        let candidates = [nearBuild, FileManager.default.currentDirectoryPath + "/scripts/postgres"]
        guard let script = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw DaemonError("the postgres benchmark needs scripts/postgres (looked at \(candidates.joined(separator: ", ")))")
        }
        self.script = script
        let directory = "/tmp/gbpg-\(UUID().uuidString.prefix(8))"
        self.directory = directory
        try Self.shell("'\(script)' start '\(directory)' >/dev/null")
        self.url = "postgresql://postgres@/postgres?host=\(directory)"
    }

    /// The URL of another database on this server (made with `CREATE DATABASE`).
    func url(database: String) -> String {
        "postgresql://postgres@/\(database)?host=\(self.directory)"
    }

    /// Runs pgbench against the server's `postgres` database with `arguments`.
    func pgbench(_ arguments: [String], output: String? = nil) throws {
        let redirect = output.map { ">'\($0)' 2>&1" } ?? ">/dev/null 2>&1"
        try Self.shell("pgbench -h '\(self.directory)' -U postgres \(arguments.joined(separator: " ")) postgres \(redirect)")
    }

    /// pgbench's built-in simple-update script (`-N`) with `clients` clients for `seconds`: transactions/s.
    func simpleUpdateRate(clients: Int, seconds: Int) throws -> Double {
        try self.rate(["-N", "-n", "-c", "\(clients)", "-j", "2", "-T", "\(seconds)"])
    }

    /// pgbench running `script` (a custom script, written to a file) with `clients` clients for `seconds`:
    /// transactions/s.
    func scriptRate(_ script: String, clients: Int, seconds: Int) throws -> Double {
        let path = self.directory + "/bench-script.sql"
        try script.write(toFile: path, atomically: true, encoding: .utf8)
        return try self.rate(["-f", path, "-n", "-c", "\(clients)", "-j", "2", "-T", "\(seconds)"])
    }

    private func rate(_ arguments: [String]) throws -> Double {
        let output = self.directory + "/pgbench.out"
        try self.pgbench(arguments, output: output)
        let text = try String(contentsOfFile: output, encoding: .utf8)
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("tps = ") }),
            let rate = Double(line.dropFirst("tps = ".count).prefix { $0.isNumber || $0 == "." })
        else { throw DaemonError("pgbench printed no rate: \(text.suffix(300))") }
        return rate
    }

    func stop() {
        try? Self.shell("'\(self.script)' stop '\(self.directory)' >/dev/null 2>&1")
    }

    private static func shell(_ command: String) throws {
        let status = system(command)
        guard status == 0 else { throw DaemonError("`\(command)` failed (status \(status))") }
    }
}
