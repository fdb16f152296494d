/// Helpers that write JSON text directly, for the envelope pieces the server writes on its hot path.
public enum JSONText: Sendable {
    /// Appends `value` as a JSON string literal (quoted and escaped).
    public static func appendString(_ value: String, to bytes: inout [UInt8]) {
        var value = value
        value.withUTF8 { Self.appendString(utf8: $0, to: &bytes) }
    }

    /// Appends UTF-8 text as a JSON string literal (quoted and escaped). Runs that need no escaping are copied
    /// whole.
    public static func appendString(utf8 value: UnsafeBufferPointer<UInt8>, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        var run = 0
        for index in value.indices {
            let byte = value[index]
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
            if run < index { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: value[run..<index])) }
            run = index + 1
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [0x5C, 0x22])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: bytes.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            default:
                let hex: StaticString = "0123456789abcdef"
                let digits = hex.utf8Start
                bytes.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30, digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
            }
        }
        if run < value.count { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: value[run...])) }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Appends a 64-bit integer in decimal, without making a `String`.
    public static func appendInt64(_ value: Int64, to bytes: inout [UInt8]) {
        if value < 0 {
            guard value != .min else {
                bytes.append(contentsOf: String(value).utf8)
                return
            }
            bytes.append(UInt8(ascii: "-"))
        }
        var magnitude = value.magnitude
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var count = 0
            repeat {
                digits[19 - count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                count += 1
            } while magnitude > 0
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: digits[(20 - count)...]))
        }
    }
}
