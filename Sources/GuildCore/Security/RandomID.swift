/// Identifiers for new records, written as lowercase hexadecimal straight into the string's storage: a version 4
/// UUID (122 random bits from the system's generator), or for records made by the thousand per second a
/// version 7 UUID (RFC 9562: the Unix time in milliseconds, then 74 random bits).
///
/// A version 7 id sorts by creation time, so the unique index on it grows at its end: a random id lands each
/// new row on a random page of that index, and every such page is one more 4 KiB frame in the commit's WAL
/// write and fsync (an `object.create` batch wrote about 30 pages, seven of them for its ids alone).
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

    /// A time-ordered id in the form of ``hex()``: the form of command ids.
    public static func timeOrderedHex(now milliseconds: Int64) -> String {
        Self.text(dashes: false, milliseconds: milliseconds)
    }

    /// A time-ordered id in the form of ``uuid()``: the form of generated object ids.
    public static func timeOrderedUUID(now milliseconds: Int64) -> String {
        Self.text(dashes: true, milliseconds: milliseconds)
    }

    private static let digits = Array("0123456789abcdef".utf8)

    private static func text(dashes: Bool, milliseconds: Int64? = nil) -> String {
        var generator = SystemRandomNumberGenerator()
        var high = generator.next() as UInt64
        var low = generator.next() as UInt64
        if let milliseconds {
            // Version 7: the time in the first 48 bits, then the version digit and 12 random bits.
            high = (UInt64(truncatingIfNeeded: milliseconds) << 16) | (high & 0x0FFF) | 0x7000
        } else {
            // Version 4 (random) in the 13th digit, as Foundation's UUID sets it.
            high = (high & ~0x0000_0000_0000_F000) | 0x0000_0000_0000_4000
        }
        // The RFC 4122 variant in the 17th digit.
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
