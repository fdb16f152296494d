import FuzzSupport
import GuildJSON
import GuildProtocol

/// Compares `JSONScanner` with `ReferenceJSON` on one text, and checks that valid texts round-trip.
enum ScannerCheck {
    static func check(_ bytes: [UInt8], maximumDepth: Int) {
        let scanner = JSONScanner(maximumDepth: maximumDepth)
        let reference = Result { () throws(ReferenceJSON.Failure) in try ReferenceJSON.parse(bytes, maximumDepth: maximumDepth) }
        let scanned = bytes.withUnsafeBytes { raw in Result { () throws(JSONScanner.Failure) in try scanner.scan(raw) } }
        switch (reference, scanned) {
        case (.success(let tree), .success(let value)):
            Invariant.check(tree.depth <= maximumDepth, "accepted nesting \(tree.depth) past the limit \(maximumDepth)", bytes: bytes)
            Self.compare(value, tree, in: bytes, scanner: scanner)
            Self.roundTrip(tree, maximumDepth: maximumDepth)
        case (.failure(.invalid), .failure(.invalid)):
            break
        case (.failure(.tooDeep), .failure(.tooDeep(let limit))):
            Invariant.check(limit == maximumDepth, "tooDeep reported limit \(limit), configured \(maximumDepth)")
        default:
            Invariant.fail("JSONScanner says \(scanned), the reference says \(reference)", bytes: bytes)
        }
    }

    /// Writes a valid tree back out twice (plain, and ASCII-only with escapes) and checks both scan to it.
    static func roundTrip(_ tree: JSONTree, maximumDepth: Int) {
        let scanner = JSONScanner(maximumDepth: maximumDepth)
        for asciiOnly in [false, true] {
            let text = ReferenceJSON.write(tree, asciiOnly: asciiOnly)
            Invariant.check((try? ReferenceJSON.parse(text)) == tree, "the reference does not round-trip", bytes: text)
            text.withUnsafeBytes { raw in
                guard let value = try? scanner.scan(raw) else {
                    Invariant.fail("JSONScanner refuses a valid text written back out", bytes: text)
                }
                Self.compare(value, tree, in: text, scanner: scanner)
            }
        }
    }

    /// Walks the scanner's view of `value` alongside the reference tree.
    static func compare(_ value: JSONScanner.Value, _ tree: JSONTree, in bytes: [UInt8], scanner: JSONScanner) {
        bytes.withUnsafeBytes { raw in Self.compare(value, tree, in: raw, scanner: scanner) }
    }

    private static func compare(
        _ value: JSONScanner.Value,
        _ tree: JSONTree,
        in raw: UnsafeRawBufferPointer,
        scanner: JSONScanner,
        level: Int = 0
    ) {
        let text = Array(raw[value.range])
        // Re-reading every range would cost the text's size times its depth: the outer levels are enough.
        if level < 3 || (value.kind != .object && value.kind != .array) {
            Invariant.check(
                (try? ReferenceJSON.parse(text)) == tree,
                "the range \(value.range) of a \(value.kind) does not hold the value",
                bytes: Array(raw)
            )
        }
        switch (value.kind, tree) {
        case (.object, .object(let members)):
            let scannedMembers = scanner.members(of: value, in: raw)
            Invariant.check(
                scannedMembers.count == members.count,
                "object with \(members.count) members scanned as \(scannedMembers.count)",
                bytes: text
            )
            for (scannedMember, member) in zip(scannedMembers, members) {
                Invariant.check(Array(scannedMember.key.utf8) == member.key, "member key differs", bytes: text)
                Self.compare(scannedMember.value, member.value, in: raw, scanner: scanner, level: level + 1)
            }
        case (.array, .array(let elements)):
            let scannedElements = scanner.elements(of: value, in: raw)
            Invariant.check(scannedElements.count == elements.count, "array of \(elements.count) scanned as \(scannedElements.count)", bytes: text)
            for (scannedElement, element) in zip(scannedElements, elements) {
                Self.compare(scannedElement, element, in: raw, scanner: scanner, level: level + 1)
            }
        case (.string, .string(let expected)):
            guard let string = try? JSONScanner.string(value, in: raw) else {
                Invariant.fail("JSONScanner.string fails on a valid string", bytes: text)
            }
            Invariant.check(Array(string.utf8) == expected, "string unescaped differently", bytes: text)
            Invariant.check(value.hasEscapes == text.contains(UInt8(ascii: "\\")), "hasEscapes is wrong", bytes: text)
            var written: [UInt8] = []
            JSONText.appendString(string, to: &written)
            Invariant.check(
                (try? ReferenceJSON.parse(written)) == .string(expected),
                "JSONText.appendString does not round-trip",
                bytes: written
            )
        case (.number, .number(let expected)):
            Invariant.check(text == Array(expected.utf8), "number text differs", bytes: text)
        case (.bool, .bool), (.null, .null):
            break
        default:
            Invariant.fail("scanned a \(value.kind), the reference read \(tree)", bytes: text)
        }
    }
}
