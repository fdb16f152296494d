/// A value that can read itself from scanned JSON without `JSONDecoder`, for small results and params on hot
/// paths. `RPCCoding.decode` and `RPCCoding.decodeParams` use it when a type conforms, and fall back to
/// `JSONDecoder` whenever it returns nil, so anything it does not handle (and every error message) stays
/// exactly as `JSONDecoder` has it.
public protocol JSONReadable {
    /// Reads the value from `value`, a part of the validated text `bytes`; nil when this fast path does not
    /// handle the input (unusual shapes, wrong types, missing members).
    init?(json value: JSONScanner.Value, in bytes: UnsafeRawBufferPointer)
}

extension JSONReadable {
    /// Reads a value from JSON text; nil when the text is not valid JSON or this fast path does not handle it.
    @inlinable  // specialised where the type is known: no metadata lookups for `Self?` per value
    public static func read(in buffer: UnsafeRawBufferPointer) -> Self? {
        guard let top = try? JSONScanner(maximumDepth: 512).scan(buffer) else { return nil }
        return Self(json: top, in: buffer)
    }
}

extension JSONScanner.Value {
    /// The string, when the value is one.
    public func string(in bytes: UnsafeRawBufferPointer) -> String? {
        guard self.kind == .string else { return nil }
        return try? JSONScanner.string(self, in: bytes)
    }

    /// The integer, when the value is written as one (digits with an optional minus sign) and fits.
    public func int64(in bytes: UnsafeRawBufferPointer) -> Int64? {
        guard self.kind == .number else { return nil }
        var result: Int64 = 0
        var negative = false
        var index = self.range.lowerBound
        if bytes[index] == UInt8(ascii: "-") {
            negative = true
            index += 1
        }
        guard index < self.range.upperBound else { return nil }
        while index < self.range.upperBound {
            let digit = bytes[index] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            let (times, overflow) = result.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) =
                negative ? times.subtractingReportingOverflow(Int64(digit)) : times.addingReportingOverflow(Int64(digit))
            guard !overflow, !overflow2 else { return nil }
            result = sum
            index += 1
        }
        return result
    }

    /// The Boolean, when the value is one.
    public func bool(in bytes: UnsafeRawBufferPointer) -> Bool? {
        guard self.kind == .bool else { return nil }
        return bytes[self.range.lowerBound] == UInt8(ascii: "t")
    }

    /// Whether the value is `null`.
    public var isNull: Bool { self.kind == .null }

    /// Whether the value is an object with no members.
    public func isEmptyObject(in bytes: UnsafeRawBufferPointer) -> Bool {
        guard self.kind == .object else { return false }
        for index in (self.range.lowerBound + 1)..<(self.range.upperBound - 1) {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: continue
            default: return false
            }
        }
        return true
    }
}

extension String: JSONReadable {
    public init?(json value: JSONScanner.Value, in bytes: UnsafeRawBufferPointer) {
        guard let string = value.string(in: bytes) else { return nil }
        self = string
    }
}
