import Foundation
import GuildCore
import Testing

struct PageKeysTests {
    let alice = Caller(peer: PeerCredentials(uid: 1000, gid: 1000, pid: 1), isAdmin: false)
    let other = Caller(peer: PeerCredentials(uid: 1001, gid: 1001, pid: 2), isAdmin: false)

    @Test func aKeyOpensForItsOwnBindingOnly() throws {
        let keys = PageKeys()
        let binding = PageBinding("object.query", caller: self.alice, ["app", "b", "all"])
        let sealed = keys.seal(Array("[42]".utf8), for: binding)
        #expect(try keys.open(sealed, for: binding) == Array("[42]".utf8))
        // The position is not readable in the key, as text or as base64url. (Sealed bytes are random-looking: a
        // short needle such as "42" turns up by chance in about one key in thirty.)
        let position = Array("[\"position-marker-4242\",9876543210]".utf8)
        let sealedPosition = keys.seal(position, for: binding)
        let base64URL = Data(position).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        #expect(!sealedPosition.contains("position-marker"))
        #expect(!sealedPosition.contains(base64URL.prefix(16)))
        #expect(try keys.open(sealedPosition, for: binding) == position)
        let elsewhere: [PageBinding] = [
            PageBinding("object.query", caller: self.other, ["app", "b", "all"]),
            PageBinding("object.query", caller: self.alice, ["app", "c", "all"]),
            PageBinding("command.list", caller: self.alice, ["app", "b", "all"]),
            // Parts are length-prefixed: moving a boundary is another binding.
            PageBinding("object.query", caller: self.alice, ["ap", "pb", "all"]),
        ]
        for binding in elsewhere {
            #expect(throws: GuildError(.invalidInput, "")) { _ = try keys.open(sealed, for: binding) }
        }
        // A daemon that restarted has a new key.
        #expect(throws: GuildError(.invalidInput, "")) { _ = try PageKeys().open(sealed, for: binding) }
    }

    @Test func longPositionsOpenAndLengthsAreRoundedUp() throws {
        let keys = PageKeys()
        let binding = PageBinding("object.query", caller: self.alice, [])
        // A sorted query's position holds its sort value: up to an object's 65,534 characters, escaped.
        let long = Array(repeating: UInt8(ascii: "x"), count: 300_000)
        #expect(try keys.open(keys.seal(long, for: binding), for: binding) == long)
        #expect(try keys.open(keys.seal([], for: binding), for: binding) == [])
        // Padded to 64-byte blocks: values of different lengths make keys of one length.
        let short = keys.seal(Array("[1,\"SSN-1\"]".utf8), for: binding)
        let longer = keys.seal(Array("[123456,\"SSN-000321-extra\"]".utf8), for: binding)
        #expect(short.count == longer.count)
    }

    @Test(arguments: ["", "WzQyXQ", "%%%", String(repeating: "A", count: 2000)])
    func madeUpKeysNeverOpen(_ text: String) {
        let binding = PageBinding("object.query", caller: self.alice, [])
        #expect(throws: GuildError(.invalidInput, "")) { _ = try PageKeys().open(text, for: binding) }
    }
}
