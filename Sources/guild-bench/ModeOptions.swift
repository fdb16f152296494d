import ArgumentParser
import Foundation
import Glibc

/// What the `fuzz` and `soak` modes take from the main command's options (`--guildd`, `--work-dir`,
/// `--keep`, which may come after the mode's name): the guildd to run and the work directory.
enum ModeOptions {
    /// Resolves guildd, makes the work directory and arms the clean-up (child processes stopped, directory
    /// removed, also on SIGINT/SIGTERM/SIGHUP).
    static func makeContext(_ bench: GuildBench) throws -> BenchContext {
        // Writes to a connection guildd closed (or a guildd that was killed) must fail, not end the bench.
        signal(SIGPIPE, SIG_IGN)
        let guilddPath = try GuildBench.guilddPath(bench.guildd)
        let workDir = try GuildBench.makeWorkDir(in: bench.workDir ?? "/tmp")
        Cleanup.shared.arm(workDir: workDir, keep: bench.keep)
        Log.progress("guild-bench: guildd \(guilddPath), work dir \(workDir)")
        return BenchContext(guilddPath: guilddPath, workDir: workDir, duration: 1, runs: 1, quick: false)
    }
}
