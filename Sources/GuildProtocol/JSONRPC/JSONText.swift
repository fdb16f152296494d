/// Helpers that write JSON text directly, for the envelope pieces the server writes on its hot path.
public enum JSONText: Sendable {
    /// Appends `value` as a JSON string literal (quoted and escaped).
    public static func appendString(_ value: String, to bytes: inout [UInt8]) {
        var value = value
        value.withUTF8 { Self.appendString(utf8: $0, to: &bytes) }
    }

    /// Appends UTF-8 text as a JSON string literal (quoted and escaped).
    public static func appendString(utf8 value: UnsafeBufferPointer<UInt8>, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        for byte in value {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [0x5C, 0x22])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: bytes.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0x00..<0x20:
                let hex: [UInt8] = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
