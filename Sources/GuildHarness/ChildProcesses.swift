import Foundation
import Glibc
import Synchronization

/// Every process a harness started and has not yet seen exit, so they can be terminated on every way out
/// (normal end, error, SIGINT/SIGTERM/SIGHUP).
public final class ChildProcesses: Sendable {
    /// The registry of this process.
    public static let shared = ChildProcesses()

    private struct State {
        var processes: [Int32: Process] = [:]
        /// Set by ``terminateAll(timeout:)``: the harness is shutting down, start nothing new.
        var closed = false
    }

    private let state = Mutex(State())

    /// Starts `process` and tracks it; throws after ``terminateAll(timeout:)``.
    public func launch(_ process: Process) throws {
        try self.state.withLock { state in
            guard !state.closed else { throw DaemonError("shutting down; not starting \(process.executableURL?.path ?? "process")") }
            try process.run()
            state.processes[process.processIdentifier] = process
        }
    }

    /// SIGTERM, except for a systemd-socket-activate that has not exec'd guildd yet: it blocks SIGTERM while
    /// it waits for a connection, and has nothing to lose, so it gets SIGKILL.
    public static func stopSignal(_ pid: Int32) -> Int32 {
        ProcFS.command(pid: pid) == "systemd-socket-" ? SIGKILL : SIGTERM
    }

    /// Stops `process` (``stopSignal(_:)``, then SIGKILL after `timeout` seconds, said on stderr) and forgets it.
    public func stop(_ process: Process, timeout: Double) async {
        if !process.hasEnded {
            kill(process.processIdentifier, Self.stopSignal(process.processIdentifier))
            let deadline = Deadline(seconds: timeout)
            while !process.hasEnded, !deadline.hasPassed {
                try? await Task.sleep(for: .milliseconds(2))
            }
            if !process.hasEnded {
                let message = "  pid \(process.processIdentifier) ignored SIGTERM for \(timeout) s; sending SIGKILL\n"
                FileHandle.standardError.write(Data(message.utf8))
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilEnded()
            }
        }
        _ = self.state.withLock { $0.processes.removeValue(forKey: process.processIdentifier) }
    }

    /// For the final cleanup and signal handling: SIGTERM to all, wait up to `timeout`, SIGKILL the rest; no
    /// process can be launched afterwards.
    public func terminateAll(timeout: Double = 5) {
        let all = self.state.withLock { state in
            state.closed = true
            let all = Array(state.processes.values)
            state.processes.removeAll()
            return all
        }
        for process in all where !process.hasEnded { kill(process.processIdentifier, Self.stopSignal(process.processIdentifier)) }
        let deadline = Deadline(seconds: timeout)
        while all.contains(where: { !$0.hasEnded }), !deadline.hasPassed { usleep(2_000) }
        for process in all where !process.hasEnded {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilEnded()
        }
    }
}
