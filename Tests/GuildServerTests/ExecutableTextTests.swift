import Foundation
import GuildServer
import Testing

@Suite("ExecutableText")
struct ExecutableTextTests {
    /// Resident kilobytes of this process's code mapped from its executable (`r-xp` lines of /proc/self/smaps).
    private static func residentCodeKilobytes() throws -> Int {
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let smaps = try String(contentsOfFile: "/proc/self/smaps", encoding: .utf8)
        var inCode = false
        var kilobytes = 0
        for line in smaps.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if let first = fields.first, first.contains("-"), fields.count >= 5 {
                inCode = fields[1] == "r-xp" && fields.count >= 6 && fields[5] == executable
            } else if inCode, fields.first == "Rss:", fields.count >= 2, let value = Int(fields[1]) {
                kilobytes += value
            }
        }
        return kilobytes
    }

    @Test("releasing the executable's code mappings lowers resident memory, and the code still runs")
    func releaseLowersResidentCode() throws {
        let before = try Self.residentCodeKilobytes()
        #expect(before > 0, "the test binary's code should be resident while it runs")
        let advised = ExecutableText.releaseResidentPages()
        let after = try Self.residentCodeKilobytes()
        #expect(advised > 0, "the executable's r-xp mapping was not found in /proc/self/maps")
        #expect(after < before, "resident code \(before) kB before, \(after) kB after")
        // The process goes on running code from the released pages: they are mapped again on use.
        let sorted = (0..<1000).map { ($0 * 7919) % 1000 }.sorted()
        #expect(sorted == Array(0..<1000))
        #expect(try Self.residentCodeKilobytes() > 0)
    }
}
