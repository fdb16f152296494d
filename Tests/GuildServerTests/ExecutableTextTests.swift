import Foundation
import GuildServer
import GuildTestSupport
import Testing

@Suite("ExecutableText")
struct ExecutableTextTests {
    @Test("releasing the executable's code mappings lowers resident memory, and the code still runs")
    func releaseLowersResidentCode() throws {
        let before = try ResidentCode.of("self").resident
        #expect(before > 0, "the test binary's code should be resident while it runs")
        let advised = ExecutableText.releaseResidentPages()
        let after = try ResidentCode.of("self").resident
        #expect(advised > 0, "the executable's r-xp mapping was not found in /proc/self/maps")
        #expect(after < before, "resident code \(before) kB before, \(after) kB after")
        // The process goes on running code from the released pages: they are mapped again on use.
        let sorted = (0..<1000).map { ($0 * 7919) % 1000 }.sorted()
        #expect(sorted == Array(0..<1000))
        #expect(try ResidentCode.of("self").resident > 0)
    }
}
