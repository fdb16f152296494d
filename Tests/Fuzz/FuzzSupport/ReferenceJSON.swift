import GuildJSON

/// The fuzz targets' reference JSON reader and writer (RFC 8259, strict UTF-8), independent of `JSONScanner`.
///
/// It builds a `JSONTree` recursively and reports the first problem met reading left to right, so its verdict
/// (valid, invalid, or nested deeper than a limit) can be compared with the scanner's.
public enum ReferenceJSON {
    /// Why a text was refused.
    public enum Failure: Error, Equatable {
        /// Not JSON.
        case invalid
        /// Nested deeper than the limit (reached before any syntax error).
        case tooDeep
    }

    /// Parses one JSON text (surrounding whitespace allowed), refusing nesting deeper than `maximumDepth`.
    public static func parse(_ bytes: some Collection<UInt8>, maximumDepth: Int = .max) throws(Failure) -> JSONTree {
        var reader = Reader(bytes: Array(bytes), maximumDepth: maximumDepth)
        reader.skipSpace()
        let value = try reader.value(depth: 0)
        reader.skipSpace()
        guard reader.at == reader.bytes.count else { throw .invalid }
        return value
    }

    /// Writes `tree` as compact JSON. With `asciiOnly`, every non-ASCII character is written as `\u` escapes
    /// (surrogate pairs past U+FFFF), and so are `/` and DEL, to exercise the reader's unescaping.
    public static func write(_ tree: JSONTree, asciiOnly: Bool = false) -> [UInt8] {
        var out: [UInt8] = []
        Self.write(tree, asciiOnly: asciiOnly, to: &out)
        return out
    }

    /// Appends `tree` as compact JSON to `out`.
    public static func write(_ tree: JSONTree, asciiOnly: Bool = false, to out: inout [UInt8]) {
        switch tree {
        case .null: out += Array("null".utf8)
        case .bool(let value): out += Array((value ? "true" : "false").utf8)
        case .number(let text): out += Array(text.utf8)
        case .string(let bytes): Self.writeString(bytes, asciiOnly: asciiOnly, to: &out)
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                Self.write(element, asciiOnly: asciiOnly, to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (index, member) in members.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                Self.writeString(member.key, asciiOnly: asciiOnly, to: &out)
                out.append(UInt8(ascii: ":"))
                Self.write(member.value, asciiOnly: asciiOnly, to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    private static func writeString(_ bytes: [UInt8], asciiOnly: Bool, to out: inout [UInt8]) {
        func escape(_ unit: UInt16) {
            let hex = Array("0123456789abcdef".utf8)
            out += [UInt8(ascii: "\\"), UInt8(ascii: "u")]
            for shift in stride(from: 12, through: 0, by: -4) { out.append(hex[Int((unit >> UInt16(shift)) & 0xF)]) }
        }
        out.append(UInt8(ascii: "\""))
        for scalar in String(decoding: bytes, as: UTF8.self).unicodeScalars {
            switch scalar.value {
            case 0x22: out += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case 0x5C: out += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case 0..<0x20: escape(UInt16(scalar.value))
            case 0x20..<0x7F where !(asciiOnly && scalar == "/"): out.append(UInt8(scalar.value))
            default:
                if asciiOnly {
                    for unit in String(scalar).utf16 { escape(unit) }
                } else {
                    out += Array(String(scalar).utf8)
                }
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    private struct Reader {
        let bytes: [UInt8]
        let maximumDepth: Int
        var at = 0

        init(bytes: [UInt8], maximumDepth: Int) {
            self.bytes = bytes
            self.maximumDepth = maximumDepth
        }

        var current: UInt8? { self.at < self.bytes.count ? self.bytes[self.at] : nil }

        mutating func skipSpace() {
            while let byte = self.current, [0x20, 0x09, 0x0A, 0x0D].contains(byte) { self.at += 1 }
        }

        mutating func expect(_ text: String) throws(Failure) {
            for byte in text.utf8 {
                guard self.current == byte else { throw .invalid }
                self.at += 1
            }
        }

        mutating func value(depth: Int) throws(Failure) -> JSONTree {
            switch self.current {
            case UInt8(ascii: "{"):
                guard depth < self.maximumDepth else { throw .tooDeep }
                return try self.object(depth: depth + 1)
            case UInt8(ascii: "["):
                guard depth < self.maximumDepth else { throw .tooDeep }
                return try self.array(depth: depth + 1)
            case UInt8(ascii: "\""): return .string(try self.string())
            case UInt8(ascii: "t"):
                try self.expect("true")
                return .bool(true)
            case UInt8(ascii: "f"):
                try self.expect("false")
                return .bool(false)
            case UInt8(ascii: "n"):
                try self.expect("null")
                return .null
            default: return .number(try self.number())
            }
        }

        mutating func object(depth: Int) throws(Failure) -> JSONTree {
            self.at += 1
            var members: [JSONTree.Member] = []
            self.skipSpace()
            if self.current == UInt8(ascii: "}") {
                self.at += 1
                return .object(members)
            }
            repeat {
                self.skipSpace()
                guard self.current == UInt8(ascii: "\"") else { throw .invalid }
                let key = try self.string()
                self.skipSpace()
                try self.expect(":")
                self.skipSpace()
                members.append(JSONTree.Member(key: key, value: try self.value(depth: depth)))
                self.skipSpace()
                guard let next = self.current else { throw .invalid }
                self.at += 1
                if next == UInt8(ascii: "}") { return .object(members) }
                guard next == UInt8(ascii: ",") else { throw .invalid }
            } while true
        }

        mutating func array(depth: Int) throws(Failure) -> JSONTree {
            self.at += 1
            var elements: [JSONTree] = []
            self.skipSpace()
            if self.current == UInt8(ascii: "]") {
                self.at += 1
                return .array(elements)
            }
            repeat {
                self.skipSpace()
                elements.append(try self.value(depth: depth))
                self.skipSpace()
                guard let next = self.current else { throw .invalid }
                self.at += 1
                if next == UInt8(ascii: "]") { return .array(elements) }
                guard next == UInt8(ascii: ",") else { throw .invalid }
            } while true
        }

        mutating func number() throws(Failure) -> String {
            let start = self.at
            func isDigit(_ byte: UInt8?) -> Bool { byte.map { (0x30...0x39).contains($0) } ?? false }
            if self.current == UInt8(ascii: "-") { self.at += 1 }
            guard isDigit(self.current) else { throw .invalid }
            if self.current == UInt8(ascii: "0") {
                self.at += 1
            } else {
                while isDigit(self.current) { self.at += 1 }
            }
            if self.current == UInt8(ascii: ".") {
                self.at += 1
                guard isDigit(self.current) else { throw .invalid }
                while isDigit(self.current) { self.at += 1 }
            }
            if self.current == UInt8(ascii: "e") || self.current == UInt8(ascii: "E") {
                self.at += 1
                if self.current == UInt8(ascii: "+") || self.current == UInt8(ascii: "-") { self.at += 1 }
                guard isDigit(self.current) else { throw .invalid }
                while isDigit(self.current) { self.at += 1 }
            }
            return String(decoding: self.bytes[start..<self.at], as: UTF8.self)
        }

        /// Reads a string literal and returns its decoded UTF-8. A `\u` escape of a lone surrogate decodes to
        /// U+FFFD (a high surrogate pairs only with an immediately following `\u` low surrogate).
        mutating func string() throws(Failure) -> [UInt8] {
            self.at += 1
            var units: [Unicode.Scalar] = []
            var pendingHigh: UInt32?
            func flushHigh() {
                if pendingHigh != nil { units.append("\u{FFFD}") }
                pendingHigh = nil
            }
            while true {
                guard let byte = self.current else { throw .invalid }
                if byte == UInt8(ascii: "\"") {
                    self.at += 1
                    flushHigh()
                    return Array(String(String.UnicodeScalarView(units)).utf8)
                }
                if byte < 0x20 { throw .invalid }
                if byte == UInt8(ascii: "\\") {
                    guard self.at + 1 < self.bytes.count else { throw .invalid }
                    let kind = self.bytes[self.at + 1]
                    self.at += 2
                    if kind == UInt8(ascii: "u") {
                        guard self.at + 4 <= self.bytes.count,
                            let code = UInt32(String(decoding: self.bytes[self.at..<(self.at + 4)], as: UTF8.self), radix: 16),
                            self.bytes[self.at..<(self.at + 4)].allSatisfy({ $0 != UInt8(ascii: "+") && $0 != UInt8(ascii: "-") })
                        else { throw .invalid }
                        self.at += 4
                        if let high = pendingHigh, (0xDC00...0xDFFF).contains(code) {
                            units.append(Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (code - 0xDC00))!)
                            pendingHigh = nil
                            continue
                        }
                        flushHigh()
                        if (0xD800...0xDBFF).contains(code) {
                            pendingHigh = code
                        } else {
                            units.append(Unicode.Scalar(code) ?? "\u{FFFD}")
                        }
                        continue
                    }
                    flushHigh()
                    let simple: [UInt8: Unicode.Scalar] = [
                        UInt8(ascii: "\""): "\"", UInt8(ascii: "\\"): "\\", UInt8(ascii: "/"): "/", UInt8(ascii: "b"): "\u{08}",
                        UInt8(ascii: "f"): "\u{0C}", UInt8(ascii: "n"): "\n", UInt8(ascii: "r"): "\r", UInt8(ascii: "t"): "\t",
                    ]
                    guard let scalar = simple[kind] else { throw .invalid }
                    units.append(scalar)
                    continue
                }
                flushHigh()
                units.append(try self.utf8Scalar())
            }
        }

        /// Decodes one UTF-8 sequence, refusing overlong forms, surrogates and values past U+10FFFF.
        mutating func utf8Scalar() throws(Failure) -> Unicode.Scalar {
            let lead = self.bytes[self.at]
            let length: Int
            let initial: UInt32
            switch lead {
            case 0x00..<0x80: (length, initial) = (1, UInt32(lead))
            case 0xC0..<0xE0: (length, initial) = (2, UInt32(lead & 0x1F))
            case 0xE0..<0xF0: (length, initial) = (3, UInt32(lead & 0x0F))
            case 0xF0..<0xF8: (length, initial) = (4, UInt32(lead & 0x07))
            default: throw .invalid
            }
            guard self.at + length <= self.bytes.count else { throw .invalid }
            var code = initial
            for offset in 1..<max(length, 1) {
                let byte = self.bytes[self.at + offset]
                guard byte & 0xC0 == 0x80 else { throw .invalid }
                code = code << 6 | UInt32(byte & 0x3F)
            }
            let smallest: [UInt32] = [0, 0, 0x80, 0x800, 0x10000]
            guard code >= smallest[length], let scalar = Unicode.Scalar(code) else { throw .invalid }
            self.at += length
            return scalar
        }
    }
}
