import Foundation
import GuildHarness

/// A `guild-bench` subcommand run as the unprivileged uid (``Hostile/uid``) under `setpriv`, its standard
/// output and error in files of the run's work folder: the daemon checks such a client's rights, as it does a
/// local user's (an admin peer skips them).
struct UnprivilegedChild: Sendable {
    let process: ChildProcess
    let outputPath: String
    let logPath: String

    /// Starts `guild-bench SUBCOMMAND ARGUMENTS…`; `name` names its output (`NAME.out`) and log (`NAME.log`).
    static func spawn(_ context: BenchContext, name: String, subcommand: String, arguments: [String]) async throws -> UnprivilegedChild {
        let executable = GuildBench.executablePath
        let outputPath = context.path(name + ".out")
        let logPath = context.path(name + ".log")
        // Empty files first: a rerun in the same folder starts them anew (the child appends).
        _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let process = try await ChildProcesses.shared.launch(
            "/usr/bin/setpriv",
            ["--reuid=\(Hostile.uid)", "--regid=\(Hostile.uid)", "--clear-groups", executable, subcommand] + arguments,
            output: .file(outputPath),
            error: .file(logPath)
        )
        return UnprivilegedChild(process: process, outputPath: outputPath, logPath: logPath)
    }
}
