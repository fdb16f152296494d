/// Random identifiers for new records: a version 4 UUID (122 random bits from the system's generator), written
/// as lowercase hexadecimal straight into the string's storage.
///
/// The ids were `UUID().uuidString.lowercased()` with the dashes removed by Foundation's `replacingOccurrences`,
/// which cost as much as the rest of a `command.send` transaction in a profile; the text is the same.
public enum RandomID {
    /// 32 lowercase hex digits (`3f2a…`): the form of user, thing, command and group ids.
    public static func hex() -> String {
        Self.text(dashes: false)
    }

    /// The canonical lowercase UUID text, 36 characters with dashes (`3f2a…-…`): the form of object ids.
    public static func uuid() -> String {
        Self.text(dashes: true)
    }

    private static let digits = Array("0123456789abcdef".utf8)

    private static func text(dashes: Bool) -> String {
        var generator = SystemRandomNumberGenerator()
        var high = generator.next() as UInt64
        var low = generator.next() as UInt64
        // Version 4 (random) in the 13th digit, the RFC 4122 variant in the 17th, as Foundation's UUID sets them.
        high = (high & ~0x0000_0000_0000_F000) | 0x0000_0000_0000_4000
        low = (low & ~0xC000_0000_0000_0000) | 0x8000_0000_0000_0000
        return String(unsafeUninitializedCapacity: dashes ? 36 : 32) { buffer in
            var index = 0
            for position in 0..<32 {
                if dashes, position == 8 || position == 12 || position == 16 || position == 20 {
                    buffer[index] = UInt8(ascii: "-")
                    index += 1
                }
                let word = position < 16 ? high : low
                let shift = UInt64(60 - 4 * (position % 16))
                buffer[index] = Self.digits[Int(truncatingIfNeeded: (word >> shift) & 0xF)]
                index += 1
            }
            return index
        }
    }
}
