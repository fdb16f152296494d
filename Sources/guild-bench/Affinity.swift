import Foundation
import GuildHarness

/// Pins every thread of some processes to one CPU with `taskset`, and puts them back.
///
/// Used to measure round trips with no cross-CPU wake-ups: on a VM, waking an idle vCPU costs tens of µs and
/// dwarfs what the code under test does. Threads started while pinned inherit the pinning; `restore` gives
/// every thread of the processes their earlier CPU list.
struct Affinity: Sendable {
    private let previous: [(pid: Int32, cpus: String)]

    /// Pins every thread of `pids` to `cpu`, remembering each process's CPU list.
    static func pin(pids: [Int32], cpu: Int) async throws -> Affinity {
        var previous: [(pid: Int32, cpus: String)] = []
        for pid in pids {
            // "pid 123's current affinity list: 0,1"
            let current = try await Self.taskset(["-c", "-p", "\(pid)"])
            guard let list = current.split(separator: ":").last?.trimmingCharacters(in: .whitespacesAndNewlines), !list.isEmpty else {
                throw DaemonError("taskset -c -p \(pid) printed \(current)")
            }
            previous.append((pid, list))
            _ = try await Self.taskset(["-a", "-c", "-p", "\(cpu)", "\(pid)"])
        }
        return Affinity(previous: previous)
    }

    /// Gives every thread of the pinned processes their earlier CPU list.
    func restore() async {
        for (pid, cpus) in self.previous {
            _ = try? await Self.taskset(["-a", "-c", "-p", cpus, "\(pid)"])
        }
    }

    private static func taskset(_ arguments: [String]) async throws -> String {
        let run = try await ChildProcess.run("/usr/bin/taskset", arguments, timeout: 30)
        guard run.status == 0 else { throw DaemonError("taskset \(arguments.joined(separator: " ")) failed: \(run.stdout)\(run.stderr)") }
        return run.stdout
    }
}
