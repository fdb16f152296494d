/// A Python script run as a client of the daemon from another uid, the way a local user other than the
/// daemon's admins reaches it: `setpriv --reuid=UID --regid=UID --clear-groups` (needs root), or plainly when
/// the uid is 0.
public enum UnprivilegedPython {
    /// `nobody`: the uid unprivileged clients run as.
    public static let nobody = 65534

    /// Runs `python3 -c script arguments…` as `uid` to completion; returns its status and output.
    public static func run(
        _ script: String,
        _ arguments: [String],
        uid: Int = Self.nobody,
        timeout: Double = Child.runTimeout
    ) async throws -> (status: Int32, stdout: String, stderr: String) {
        let python = ["python3", "-c", script] + arguments
        if uid == 0 { return try await Child.run("/usr/bin/env", python, timeout: timeout) }
        return try await Child.run(
            "/usr/bin/setpriv",
            ["--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", "/usr/bin/env"] + python,
            timeout: timeout
        )
    }
}
