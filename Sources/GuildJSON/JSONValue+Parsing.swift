/// Building a ``JSONValue`` tree from JSON text with ``JSONScanner`` (no `JSONDecoder`).
extension JSONValue {
    /// Parses one JSON text. Integers that fit in 64 bits are `.int`; other numbers `.double`.
    public init(parsing bytes: UnsafeRawBufferPointer, maximumDepth: Int = 128) throws(JSONScanner.Failure) {
        let scanner = JSONScanner(maximumDepth: maximumDepth)
        let root = try scanner.scan(bytes)
        self = try Self.build(root, scanner, bytes)
    }

    private static func build(
        _ value: JSONScanner.Value,
        _ scanner: JSONScanner,
        _ bytes: UnsafeRawBufferPointer
    ) throws(JSONScanner.Failure) -> JSONValue {
        switch value.kind {
        case .null: return .null
        case .bool: return .bool(value.bool(in: bytes) ?? false)
        case .string: return .string(try JSONScanner.string(value, in: bytes))
        case .number:
            if let integer = value.int64(in: bytes) { return .int(integer) }
            let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[value.range]), as: UTF8.self)
            return .double(Double(text) ?? .nan)
        case .array:
            var items: [JSONValue] = []
            for element in scanner.elements(of: value, in: bytes) { items.append(try Self.build(element, scanner, bytes)) }
            return .array(items)
        case .object:
            var members: [String: JSONValue] = [:]
            for member in scanner.members(of: value, in: bytes) { members[member.key] = try Self.build(member.value, scanner, bytes) }
            return .object(members)
        }
    }
}
