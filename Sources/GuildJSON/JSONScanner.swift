#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A strict, allocation-light RFC 8259 JSON validator that records where values are.
///
/// The scanner validates a whole JSON text in one pass (grammar, string escapes, UTF-8, nesting depth) and
/// returns the byte ranges of top-level members or elements. Envelope fields are then read from those ranges
/// without building a tree, and `params` are handed to `JSONDecoder` as an exact byte slice. This keeps the
/// request path cheap for calls like `system.ping`, and lets the server echo an `id` byte for byte.
public struct JSONScanner: Sendable {
    /// The kind of a scanned JSON value.
    public enum Kind: Sendable, Equatable {
        case object
        case array
        case string
        case number
        case bool
        case null
    }

    /// A value found by the scanner: its kind and its byte range in the scanned text.
    public struct Value: Sendable, Equatable {
        /// What the value is.
        public var kind: Kind
        /// The value's bytes, including quotes or brackets.
        public var range: Range<Int>
        /// For strings: whether the string contains escape sequences (and so needs unescaping to read).
        public var hasEscapes: Bool
    }

    /// A member of a scanned object.
    public struct Member: Sendable, Equatable {
        /// The member's key, unescaped.
        public var key: String
        /// The member's value.
        public var value: Value
    }

    /// Why a text is not acceptable JSON.
    public enum Failure: Error, Sendable, Equatable {
        /// The text is not valid JSON (or not valid UTF-8) at the given offset.
        case invalid(offset: Int, reason: String)
        /// The text nests arrays and objects deeper than allowed.
        case tooDeep(limit: Int)
    }

    /// The deepest nesting of arrays and objects accepted.
    public var maximumDepth: Int

    /// Creates a scanner.
    /// - Parameter maximumDepth: the deepest nesting of arrays and objects accepted (default 128).
    public init(maximumDepth: Int = 128) {
        self.maximumDepth = maximumDepth
    }

    /// Validates `bytes` as one JSON text and returns its top-level value.
    public func scan(_ bytes: UnsafeRawBufferPointer) throws(Failure) -> Value {
        var cursor = Cursor(bytes: bytes, maximumDepth: self.maximumDepth)
        cursor.skipWhitespace()
        let value = try cursor.value(depth: 0)
        cursor.skipWhitespace()
        guard cursor.index == bytes.count else {
            throw .invalid(offset: cursor.index, reason: "unexpected data after the JSON value")
        }
        return value
    }

    /// Validates `bytes` as one JSON text, as ``scan(_:)`` does, and when it is an object hands each of its
    /// members to `member` as they are validated: the key (a string value, with its quotes) and the value. One
    /// pass over the text, with no key strings made: for reading an envelope's few members.
    public func scan(
        _ bytes: UnsafeRawBufferPointer,
        members member: (_ key: Value, _ value: Value) -> Void
    ) throws(Failure) -> Value {
        var cursor = Cursor(bytes: bytes, maximumDepth: self.maximumDepth)
        cursor.skipWhitespace()
        let value =
            if cursor.peek == UInt8(ascii: "{") {
                try cursor.object(depth: 1, member: member)
            } else {
                try cursor.value(depth: 0)
            }
        cursor.skipWhitespace()
        guard cursor.index == bytes.count else {
            throw .invalid(offset: cursor.index, reason: "unexpected data after the JSON value")
        }
        return value
    }

    /// Whether a validated string value is `text` (compared as unescaped text).
    public static func string(_ value: Value, in bytes: UnsafeRawBufferPointer, is text: StaticString) -> Bool {
        precondition(value.kind == .string)
        guard !value.hasEscapes else { return (try? Self.string(value, in: bytes)) == text.description }
        let count = value.range.count - 2
        guard count == text.utf8CodeUnitCount, let base = bytes.baseAddress else { return false }
        return memcmp(base + value.range.lowerBound + 1, text.utf8Start, count) == 0
    }

    /// The members of an already validated object value.
    public func members(of object: Value, in bytes: UnsafeRawBufferPointer) -> [Member] {
        var result: [Member] = []
        result.reserveCapacity(8)  // a request envelope's members without growing the array twice
        self.forEachMember(of: object, in: bytes) { key, value in
            guard let key = try? Self.string(key, in: bytes) else { return }
            result.append(Member(key: key, value: value))
        }
        return result
    }

    /// Hands each member of an already validated object value to `member`: its key (a string value, with its
    /// quotes) and its value, without making key strings.
    public func forEachMember(
        of object: Value,
        in bytes: UnsafeRawBufferPointer,
        _ member: (_ key: Value, _ value: Value) -> Void
    ) {
        precondition(object.kind == .object)
        var cursor = Cursor(bytes: bytes, maximumDepth: Int.max)
        cursor.index = object.range.lowerBound + 1
        cursor.skipWhitespace()
        if cursor.peek == UInt8(ascii: "}") { return }
        while true {
            cursor.skipWhitespace()
            // The object was validated by `scan`: its members are only located here, not checked again.
            guard let key = cursor.validatedValue(), key.kind == .string else { return }
            cursor.skipWhitespace()
            cursor.index += 1  // ':'
            cursor.skipWhitespace()
            guard let value = cursor.validatedValue() else { return }
            member(key, value)
            cursor.skipWhitespace()
            if cursor.peek == UInt8(ascii: ",") {
                cursor.index += 1
                continue
            }
            return
        }
    }

    /// The elements of an already validated array value.
    public func elements(of array: Value, in bytes: UnsafeRawBufferPointer) -> [Value] {
        precondition(array.kind == .array)
        var cursor = Cursor(bytes: bytes, maximumDepth: Int.max)
        cursor.index = array.range.lowerBound + 1
        var result: [Value] = []
        cursor.skipWhitespace()
        if cursor.peek == UInt8(ascii: "]") { return result }
        while true {
            cursor.skipWhitespace()
            guard let value = cursor.validatedValue() else { return result }
            result.append(value)
            cursor.skipWhitespace()
            if cursor.peek == UInt8(ascii: ",") {
                cursor.index += 1
                continue
            }
            return result
        }
    }

    /// Reads a validated string value.
    public static func string(_ value: Value, in bytes: UnsafeRawBufferPointer) throws(Failure) -> String {
        precondition(value.kind == .string)
        let inner = UnsafeRawBufferPointer(rebasing: bytes[(value.range.lowerBound + 1)..<(value.range.upperBound - 1)])
        if !value.hasEscapes {
            return String(decoding: inner, as: UTF8.self)
        }
        return try Self.unescape(inner, offset: value.range.lowerBound + 1)
    }

    private static func unescape(_ bytes: UnsafeRawBufferPointer, offset: Int) throws(Failure) -> String {
        var utf8: [UInt8] = []
        utf8.reserveCapacity(bytes.count)
        var index = 0
        func hex4(_ at: Int) throws(Failure) -> UInt32 {
            guard at + 4 <= bytes.count else { throw .invalid(offset: offset + at, reason: "truncated \\u escape") }
            var value: UInt32 = 0
            for i in at..<(at + 4) {
                guard let digit = hexValue(bytes[i]) else {
                    throw .invalid(offset: offset + i, reason: "invalid \\u escape")
                }
                value = value << 4 | UInt32(digit)
            }
            return value
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte != UInt8(ascii: "\\") {
                utf8.append(byte)
                index += 1
                continue
            }
            let escape = bytes[index + 1]
            index += 2
            switch escape {
            case UInt8(ascii: "\""): utf8.append(0x22)
            case UInt8(ascii: "\\"): utf8.append(0x5C)
            case UInt8(ascii: "/"): utf8.append(0x2F)
            case UInt8(ascii: "b"): utf8.append(0x08)
            case UInt8(ascii: "f"): utf8.append(0x0C)
            case UInt8(ascii: "n"): utf8.append(0x0A)
            case UInt8(ascii: "r"): utf8.append(0x0D)
            case UInt8(ascii: "t"): utf8.append(0x09)
            case UInt8(ascii: "u"):
                var code = try hex4(index)
                index += 4
                if (0xD800...0xDBFF).contains(code), index + 6 <= bytes.count, bytes[index] == UInt8(ascii: "\\"),
                    bytes[index + 1] == UInt8(ascii: "u")
                {
                    let low = try hex4(index + 2)
                    if (0xDC00...0xDFFF).contains(low) {
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                        index += 6
                    }
                }
                // A lone surrogate cannot be represented in a Swift String: replace it, as JSONDecoder does not
                // reject it either. U+FFFD keeps the text valid.
                let scalar = Unicode.Scalar(code) ?? "\u{FFFD}"
                utf8.append(contentsOf: Array(String(scalar).utf8))
            default:
                throw .invalid(offset: offset + index - 1, reason: "invalid escape")
            }
        }
        return String(decoding: utf8, as: UTF8.self)
    }
}

@inline(__always)
private func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    default: nil
    }
}

// MARK: - Cursor

extension JSONScanner {
    fileprivate struct Cursor {
        let bytes: UnsafeRawBufferPointer
        let maximumDepth: Int
        var index = 0

        init(bytes: UnsafeRawBufferPointer, maximumDepth: Int) {
            self.bytes = bytes
            self.maximumDepth = maximumDepth
        }

        var peek: UInt8? {
            self.index < self.bytes.count ? self.bytes[self.index] : nil
        }

        mutating func skipWhitespace() {
            while self.index < self.bytes.count {
                switch self.bytes[self.index] {
                case 0x20, 0x09, 0x0A, 0x0D: self.index += 1
                default: return
                }
            }
        }

        func fail(_ reason: String) -> Failure {
            .invalid(offset: self.index, reason: reason)
        }

        mutating func value(depth: Int) throws(Failure) -> Value {
            guard let byte = self.peek else { throw self.fail("unexpected end of input") }
            switch byte {
            case UInt8(ascii: "{"): return try self.object(depth: depth + 1) { _, _ in }
            case UInt8(ascii: "["): return try self.array(depth: depth + 1)
            case UInt8(ascii: "\""): return try self.string()
            case UInt8(ascii: "t"): return try self.literal("true", kind: .bool)
            case UInt8(ascii: "f"): return try self.literal("false", kind: .bool)
            case UInt8(ascii: "n"): return try self.literal("null", kind: .null)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try self.number()
            default: throw self.fail("unexpected character")
            }
        }

        /// Steps over one value of a text that `scan` has validated, without checking it again: strings to their
        /// closing quote, arrays and objects to their closing bracket, other values to the next delimiter. Nil
        /// if the text ends first (it was not validated).
        mutating func validatedValue() -> Value? {
            let start = self.index
            guard let first = self.peek else { return nil }
            switch first {
            case UInt8(ascii: "\""):
                var hasEscapes = false
                self.index += 1
                while self.index < self.bytes.count {
                    switch self.bytes[self.index] {
                    case UInt8(ascii: "\""):
                        self.index += 1
                        return Value(kind: .string, range: start..<self.index, hasEscapes: hasEscapes)
                    case UInt8(ascii: "\\"):
                        hasEscapes = true
                        self.index += 2
                    default:
                        self.index += 1
                    }
                }
                return nil
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                var depth = 0
                var inString = false
                while self.index < self.bytes.count {
                    let byte = self.bytes[self.index]
                    self.index += 1
                    if inString {
                        if byte == UInt8(ascii: "\\") {
                            self.index += 1
                        } else if byte == UInt8(ascii: "\"") {
                            inString = false
                        }
                        continue
                    }
                    switch byte {
                    case UInt8(ascii: "\""): inString = true
                    case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                    case UInt8(ascii: "}"), UInt8(ascii: "]"):
                        depth -= 1
                        if depth == 0 {
                            return Value(kind: first == UInt8(ascii: "{") ? .object : .array, range: start..<self.index, hasEscapes: false)
                        }
                    default: break
                    }
                }
                return nil
            default:
                while self.index < self.bytes.count {
                    switch self.bytes[self.index] {
                    case UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 0x20, 0x09, 0x0A, 0x0D:
                        break
                    default:
                        self.index += 1
                        continue
                    }
                    break
                }
                let kind: Kind =
                    switch first {
                    case UInt8(ascii: "t"), UInt8(ascii: "f"): .bool
                    case UInt8(ascii: "n"): .null
                    default: .number
                    }
                return Value(kind: kind, range: start..<self.index, hasEscapes: false)
            }
        }

        mutating func literal(_ text: StaticString, kind: Kind) throws(Failure) -> Value {
            let start = self.index
            let count = text.utf8CodeUnitCount
            guard start + count <= self.bytes.count else { throw self.fail("invalid literal") }
            let expected = UnsafeRawBufferPointer(start: text.utf8Start, count: count)
            for i in 0..<count where self.bytes[start + i] != expected[i] {
                throw self.fail("invalid literal")
            }
            self.index += count
            return Value(kind: kind, range: start..<self.index, hasEscapes: false)
        }

        mutating func number() throws(Failure) -> Value {
            let start = self.index
            if self.peek == UInt8(ascii: "-") { self.index += 1 }
            guard let first = self.peek, first >= UInt8(ascii: "0"), first <= UInt8(ascii: "9") else {
                throw self.fail("invalid number")
            }
            self.index += 1
            if first != UInt8(ascii: "0") { self.digits() }
            if self.peek == UInt8(ascii: ".") {
                self.index += 1
                guard self.digits() > 0 else { throw self.fail("invalid number: digits expected after '.'") }
            }
            if let e = self.peek, e == UInt8(ascii: "e") || e == UInt8(ascii: "E") {
                self.index += 1
                if let sign = self.peek, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { self.index += 1 }
                guard self.digits() > 0 else { throw self.fail("invalid number: digits expected in exponent") }
            }
            return Value(kind: .number, range: start..<self.index, hasEscapes: false)
        }

        @discardableResult
        mutating func digits() -> Int {
            let start = self.index
            while let byte = self.peek, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") { self.index += 1 }
            return self.index - start
        }

        mutating func string() throws(Failure) -> Value {
            let start = self.index
            guard self.peek == UInt8(ascii: "\"") else { throw self.fail("string expected") }
            self.index += 1
            var hasEscapes = false
            while self.index < self.bytes.count {
                let byte = self.bytes[self.index]
                switch byte {
                case UInt8(ascii: "\""):
                    self.index += 1
                    return Value(kind: .string, range: start..<self.index, hasEscapes: hasEscapes)
                case UInt8(ascii: "\\"):
                    hasEscapes = true
                    guard self.index + 1 < self.bytes.count else { throw self.fail("unterminated escape") }
                    switch self.bytes[self.index + 1] {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
                        UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                        self.index += 2
                    case UInt8(ascii: "u"):
                        guard self.index + 6 <= self.bytes.count else { throw self.fail("truncated \\u escape") }
                        for i in (self.index + 2)..<(self.index + 6) where hexValue(self.bytes[i]) == nil {
                            throw .invalid(offset: i, reason: "invalid \\u escape")
                        }
                        self.index += 6
                    default:
                        throw self.fail("invalid escape")
                    }
                case 0x00..<0x20:
                    throw self.fail("control character in string")
                case 0x20..<0x80:
                    self.index += 1
                default:
                    try self.multibyte()
                }
            }
            throw .invalid(offset: start, reason: "unterminated string")
        }

        /// Validates one multi-byte UTF-8 sequence (RFC 3629: no overlongs, no surrogates, at most U+10FFFF).
        mutating func multibyte() throws(Failure) {
            let lead = self.bytes[self.index]
            let count: Int
            var lower: UInt8 = 0x80
            var upper: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF: count = 2
            case 0xE0:
                count = 3
                lower = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: count = 3
            case 0xED:
                count = 3
                upper = 0x9F
            case 0xF0:
                count = 4
                lower = 0x90
            case 0xF1...0xF3: count = 4
            case 0xF4:
                count = 4
                upper = 0x8F
            default: throw self.fail("invalid UTF-8")
            }
            guard self.index + count <= self.bytes.count else { throw self.fail("invalid UTF-8") }
            let second = self.bytes[self.index + 1]
            guard second >= lower, second <= upper else { throw self.fail("invalid UTF-8") }
            for i in 2..<count {
                let byte = self.bytes[self.index + i]
                guard byte >= 0x80, byte <= 0xBF else { throw self.fail("invalid UTF-8") }
            }
            self.index += count
        }

        mutating func object(depth: Int, member: (Value, Value) -> Void) throws(Failure) -> Value {
            guard depth <= self.maximumDepth else { throw .tooDeep(limit: self.maximumDepth) }
            let start = self.index
            self.index += 1
            self.skipWhitespace()
            if self.peek == UInt8(ascii: "}") {
                self.index += 1
                return Value(kind: .object, range: start..<self.index, hasEscapes: false)
            }
            while true {
                self.skipWhitespace()
                let key = try self.string()
                self.skipWhitespace()
                guard self.peek == UInt8(ascii: ":") else { throw self.fail("':' expected") }
                self.index += 1
                self.skipWhitespace()
                member(key, try self.value(depth: depth))
                self.skipWhitespace()
                switch self.peek {
                case UInt8(ascii: ","):
                    self.index += 1
                case UInt8(ascii: "}"):
                    self.index += 1
                    return Value(kind: .object, range: start..<self.index, hasEscapes: false)
                default:
                    throw self.fail("',' or '}' expected")
                }
            }
        }

        mutating func array(depth: Int) throws(Failure) -> Value {
            guard depth <= self.maximumDepth else { throw .tooDeep(limit: self.maximumDepth) }
            let start = self.index
            self.index += 1
            self.skipWhitespace()
            if self.peek == UInt8(ascii: "]") {
                self.index += 1
                return Value(kind: .array, range: start..<self.index, hasEscapes: false)
            }
            while true {
                self.skipWhitespace()
                _ = try self.value(depth: depth)
                self.skipWhitespace()
                switch self.peek {
                case UInt8(ascii: ","):
                    self.index += 1
                case UInt8(ascii: "]"):
                    self.index += 1
                    return Value(kind: .array, range: start..<self.index, hasEscapes: false)
                default:
                    throw self.fail("',' or ']' expected")
                }
            }
        }
    }
}
