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
}
