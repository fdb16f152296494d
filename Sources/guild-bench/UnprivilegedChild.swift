import Foundation
import GuildHarness

/// A `guild-bench` subcommand run as the unprivileged uid (``Hostile/uid``) under `setpriv`, its standard
/// output and error in files of the run's work folder: the daemon checks such a client's rights, as it does a
/// local user's (an admin peer skips them).
struct UnprivilegedChild: Sendable {
    let process: Process
    let outputPath: String
    let logPath: String

    /// Starts `guild-bench SUBCOMMAND ARGUMENTS…`; `name` names its output (`NAME.out`) and log (`NAME.log`).
    static func spawn(_ context: BenchContext, name: String, subcommand: String, arguments: [String]) throws -> UnprivilegedChild {
        let executable = GuildBench.executablePath
        let outputPath = context.path(name + ".out")
        let logPath = context.path(name + ".log")
        _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        guard let output = FileHandle(forWritingAtPath: outputPath), let log = FileHandle(forWritingAtPath: logPath) else {
            throw DaemonError("cannot open \(outputPath)")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments = ["--reuid=\(Hostile.uid)", "--regid=\(Hostile.uid)", "--clear-groups", executable, subcommand] + arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = log
        try ChildProcesses.shared.launch(process)
        try? output.close()
        try? log.close()
        return UnprivilegedChild(process: process, outputPath: outputPath, logPath: logPath)
    }
}
