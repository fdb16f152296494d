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
    static func pin(pids: [Int32], cpu: Int) throws -> Affinity {
        var previous: [(pid: Int32, cpus: String)] = []
        for pid in pids {
            // "pid 123's current affinity list: 0,1"
            let current = try Self.taskset(["-c", "-p", "\(pid)"])
            guard let list = current.split(separator: ":").last?.trimmingCharacters(in: .whitespacesAndNewlines), !list.isEmpty else {
                throw DaemonError("taskset -c -p \(pid) printed \(current)")
            }
            previous.append((pid, list))
            _ = try Self.taskset(["-a", "-c", "-p", "\(cpu)", "\(pid)"])
        }
        return Affinity(previous: previous)
    }

    /// Gives every thread of the pinned processes their earlier CPU list.
    func restore() {
        for (pid, cpus) in self.previous {
            _ = try? Self.taskset(["-a", "-c", "-p", cpus, "\(pid)"])
        }
    }

    private static func taskset(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/taskset")
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        guard process.terminationStatus == 0 else { throw DaemonError("taskset \(arguments.joined(separator: " ")) failed: \(text)") }
        return text
    }
}
