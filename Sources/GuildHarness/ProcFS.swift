import Foundation

/// What the kernel shows about a process under `/proc`.
public enum ProcFS {
    /// The process name (`/proc/PID/comm`, at most 15 bytes), e.g. to tell whether an exec happened; nil when
    /// the process is gone.
    public static func command(pid: Int32) -> String? {
        (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
