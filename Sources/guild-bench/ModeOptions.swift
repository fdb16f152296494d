import ArgumentParser
import Foundation
import Glibc

/// The options the `fuzz` and `soak` modes share with the benchmark run: which guildd, where the work
/// directory goes, whether to keep it.
struct ModeOptions: ParsableArguments {
    @Option(help: "The guildd executable (default: guildd next to this executable).")
    var guildd: String?

    @Option(help: "Directory in which a fresh gb-XXXXXX work directory is made (default: /tmp).")
    var workDir: String?

    @Flag(help: "Keep the work directory (database, logs).")
    var keep = false

    /// Resolves guildd, makes the work directory and arms the clean-up (child processes stopped, directory
    /// removed, also on SIGINT/SIGTERM/SIGHUP).
    func makeContext() throws -> BenchContext {
        // Writes to a connection guildd closed (or a guildd that was killed) must fail, not end the bench.
        signal(SIGPIPE, SIG_IGN)
        let guilddPath = try GuildBench.guilddPath(self.guildd)
        let workDir = try GuildBench.makeWorkDir(in: self.workDir ?? "/tmp")
        Cleanup.shared.arm(workDir: workDir, keep: self.keep)
        Log.progress("guild-bench: guildd \(guilddPath), work dir \(workDir)")
        return BenchContext(guilddPath: guilddPath, workDir: workDir, duration: 1, runs: 1, quick: false)
    }
}
