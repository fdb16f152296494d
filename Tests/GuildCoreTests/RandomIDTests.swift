import Foundation
import Testing

@testable import GuildCore

struct RandomIDTests {
    @Test func hexIsAVersion4UUIDWithoutDashes() {
        for _ in 0..<1000 {
            let id = RandomID.hex()
            #expect(id.utf8.count == 32)
            #expect(id.allSatisfy { "0123456789abcdef".contains($0) })
            let digits = Array(id)
            #expect(digits[12] == "4")
            #expect("89ab".contains(digits[16]))
        }
    }

    @Test func uuidIsTheCanonicalLowercaseTextFoundationReads() throws {
        for _ in 0..<1000 {
            let id = RandomID.uuid()
            let parsed = try #require(UUID(uuidString: id))
            #expect(parsed.uuidString.lowercased() == id)
            #expect(Array(id).enumerated().filter { $0.element == "-" }.map(\.offset) == [8, 13, 18, 23])
        }
    }

    @Test func idsDoNotRepeat() {
        let ids = (0..<20_000).map { _ in RandomID.hex() }
        #expect(Set(ids).count == ids.count)
    }

    @Test func timeOrderedIdsAreVersion7AndSortByTheirMillisecond() throws {
        let now: Int64 = 1_795_000_000_123
        let id = RandomID.timeOrderedUUID(now: now)
        let parsed = try #require(UUID(uuidString: id))
        #expect(parsed.uuidString.lowercased() == id)
        #expect(Array(id)[14] == "7")
        #expect("89ab".contains(Array(id)[19]))
        // The first 48 bits are the time.
        #expect(Int64(id.prefix(8) + id.dropFirst(9).prefix(4), radix: 16) == now)
        let hex = RandomID.timeOrderedHex(now: now + 1)
        #expect(hex.utf8.count == 32 && Array(hex)[12] == "7")
        #expect(Int64(hex.prefix(12), radix: 16) == now + 1)
        // Later milliseconds sort later, whatever the random bits; the same millisecond still gives new ids.
        let ordered = (0..<1000).map { RandomID.timeOrderedHex(now: now + Int64($0)) }
        #expect(ordered == ordered.sorted())
        let same = (0..<1000).map { _ in RandomID.timeOrderedHex(now: now) }
        #expect(Set(same).count == same.count)
    }
}
