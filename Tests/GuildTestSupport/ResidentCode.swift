import Foundation

/// How much of a process's code, mapped from its executable, is resident: the `r-xp` mapping of
/// `/proc/PID/exe` in `/proc/PID/smaps`.
public struct ResidentCode: Sendable {
    /// Resident kilobytes of the mapping.
    public var resident: Int
    /// Mapped kilobytes (0 when no such mapping was found).
    public var size: Int

    /// The figures of process `pid` (`"self"` for this process).
    public static func of(_ pid: String) throws -> ResidentCode {
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")
        var code = ResidentCode(resident: 0, size: 0)
        var inCode = false
        for line in try String(contentsOfFile: "/proc/\(pid)/smaps", encoding: .utf8).split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if fields.count >= 6, fields[0].contains("-") {
                inCode = fields[1] == "r-xp" && fields[5] == executable
            } else if inCode, fields.count >= 2, let kilobytes = Int(fields[1]) {
                if fields[0] == "Size:" { code.size += kilobytes }
                if fields[0] == "Rss:" { code.resident += kilobytes }
            }
        }
        return code
    }
}
