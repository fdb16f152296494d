import Foundation
import Glibc
import Synchronization

/// Every process a harness started and has not yet seen exit, so they can be terminated on every way out
/// (normal end, error, SIGINT/SIGTERM/SIGHUP).
public final class ChildProcesses: Sendable {
    /// The registry of this process.
    public static let shared = ChildProcesses()

    private struct State {
        var processes: [Int32: ChildProcess] = [:]
        /// Set by ``terminateAll(timeout:)``: the harness is shutting down, start nothing new.
        var closed = false
    }

    private let state = Mutex(State())

    /// A registry of its own (the harness uses ``shared``).
    public init() {}

    /// Starts a process (see ``ChildProcess/spawn(_:_:environment:workingDirectory:input:output:error:)``) and tracks
    /// it; throws after ``terminateAll(timeout:)``.
    public func launch(
        _ executable: String,
        _ arguments: [String],
        environment: [String: String?] = [:],
        output: ChildProcess.Destination = .discarded,
        error: ChildProcess.Destination = .discarded
    ) async throws -> ChildProcess {
        try self.checkOpen(executable)
        let process = try await ChildProcess.spawn(executable, arguments, environment: environment, output: output, error: error)
        let tracked = self.state.withLock { state in
            guard !state.closed else { return false }
            state.processes[process.pid] = process
            return true
        }
        guard tracked else {
            // terminateAll ran while it started: it would not have seen this one.
            process.signal(SIGKILL)
            _ = await process.wait(timeout: 5)
            throw DaemonError("shutting down; stopped \(executable) at its start")
        }
        return process
    }

    private func checkOpen(_ executable: String) throws {
        try self.state.withLock { state in
            guard !state.closed else { throw DaemonError("shutting down; not starting \(executable)") }
        }
    }

    /// SIGTERM, except for a systemd-socket-activate that has not exec'd guildd yet: it blocks SIGTERM while
    /// it waits for a connection, and has nothing to lose, so it gets SIGKILL.
    public static func stopSignal(_ pid: Int32) -> Int32 {
        ProcFS.command(pid: pid) == "systemd-socket-" ? SIGKILL : SIGTERM
    }

    /// Stops `process` (``stopSignal(_:)``, then SIGKILL after `timeout` seconds, said on stderr) and forgets it.
    public func stop(_ process: ChildProcess, timeout: Double) async {
        if !process.hasEnded {
            process.signal(Self.stopSignal(process.pid))
            if await process.wait(timeout: timeout) == nil {
                let message = "  pid \(process.pid) ignored SIGTERM for \(timeout) s; sending SIGKILL\n"
                FileHandle.standardError.write(Data(message.utf8))
                process.signal(SIGKILL)
                await process.wait()
            }
        }
        _ = self.state.withLock { $0.processes.removeValue(forKey: process.pid) }
    }

    /// For the final cleanup and signal handling: SIGTERM to all, wait up to `timeout`, SIGKILL the rest; no
    /// process can be launched afterwards. Synchronous: it may run on a signal-handling thread or at exit.
    public func terminateAll(timeout: Double = 5) {
        let all = self.state.withLock { state in
            state.closed = true
            let all = Array(state.processes.values)
            state.processes.removeAll()
            return all
        }
        for process in all { process.signal(Self.stopSignal(process.pid)) }
        let deadline = Deadline(seconds: timeout)
        while all.contains(where: { !$0.hasEnded }), !deadline.hasPassed { usleep(2_000) }
        for process in all where !process.hasEnded {
            process.signal(SIGKILL)
            process.waitUntilEnded()
        }
    }
}
