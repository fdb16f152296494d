import Foundation

/// A value that writes its own compact JSON, for large results on hot paths (lists of groups and members).
/// What it writes must decode to the same value as `JSONEncoder`'s output; `RPCCoding.encode` uses it
/// instead of `JSONEncoder` when a value conforms.
public protocol JSONWritable {
    /// Appends the value's JSON text.
    func writeJSON(to bytes: inout [UInt8])
}

extension JSONText {
    /// Appends `"key":` (the key must not need escaping).
    @inlinable
    public static func appendKey(_ key: StaticString, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount))
        // Two appends, not an array literal: no allocation per key.
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
    }

    /// Appends an integer.
    @inlinable
    public static func appendInteger(_ value: some BinaryInteger, to bytes: inout [UInt8]) {
        if let value = Int64(exactly: value) {
            Self.appendInt64(value, to: &bytes)
        } else {
            bytes.append(contentsOf: String(value).utf8)
        }
    }

    /// Appends JSON text written out in the source (`,"groupID":`): one append where a key and its punctuation
    /// would take four, which counts in lists of thousands of small objects.
    @inlinable
    public static func appendRaw(_ text: StaticString, to bytes: inout [UInt8]) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Appends `true` or `false`.
    @inlinable
    public static func appendBool(_ value: Bool, to bytes: inout [UInt8]) {
        Self.appendRaw(value ? "true" : "false", to: &bytes)
    }

    /// Appends a JSON array of writable values. Inlinable, so it is specialised for the element type where it is
    /// called (unspecialised, each call looked up the element's generic metadata: a tenth of writing 1,000 counts).
    @inlinable
    public static func appendArray(_ values: [some JSONWritable], to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "["))
        var first = true
        for value in values {
            if !first { bytes.append(UInt8(ascii: ",")) }
            first = false
            value.writeJSON(to: &bytes)
        }
        bytes.append(UInt8(ascii: "]"))
    }
}

extension JSONWritable {
    /// The value's JSON bytes, as ``writeJSON(to:)`` writes them.
    public var jsonBytes: [UInt8] {
        var bytes: [UInt8] = []
        self.writeJSON(to: &bytes)
        return bytes
    }

    /// The value's JSON text, as ``writeJSON(to:)`` writes it.
    public var jsonText: String {
        var bytes: [UInt8] = []
        self.writeJSON(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension JSONValue: JSONWritable {
    /// The first NaN or infinity in the value, depth first, or nil when every number is finite. JSON cannot hold
    /// them: ``RPCCoding/encode(_:)`` refuses a value that has one, as `JSONEncoder` does.
    public var firstNonFiniteNumber: Double? {
        switch self {
        case .double(let value): value.isFinite ? nil : value
        case .array(let values): values.lazy.compactMap(\.firstNonFiniteNumber).first
        case .object(let members): members.values.lazy.compactMap(\.firstNonFiniteNumber).first
        case .null, .bool, .int, .string: nil
        }
    }

    /// Compact JSON, object keys sorted (as `RPCCoding`'s encoder writes them). A NaN or infinity, which JSON
    /// cannot hold, is written as `null` here; ``RPCCoding/encode(_:)`` checks ``firstNonFiniteNumber`` first and
    /// throws instead.
    public func writeJSON(to bytes: inout [UInt8]) {
        switch self {
        case .null: bytes.append(contentsOf: "null".utf8)
        case .bool(let value): JSONText.appendBool(value, to: &bytes)
        case .int(let value): JSONText.appendInteger(value, to: &bytes)
        case .double(let value):
            // Numbers as JSONEncoder writes them (it throws only for NaN and infinity, which JSON cannot hold).
            let encoder = JSONEncoder()
            bytes.append(contentsOf: (try? encoder.encode(value)) ?? Data("null".utf8))
        case .string(let value): JSONText.appendString(value, to: &bytes)
        case .array(let values): JSONText.appendArray(values, to: &bytes)
        case .object(let members):
            bytes.append(UInt8(ascii: "{"))
            for (index, key) in members.keys.sorted().enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                JSONText.appendString(key, to: &bytes)
                bytes.append(UInt8(ascii: ":"))
                members[key]?.writeJSON(to: &bytes)
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }
}
