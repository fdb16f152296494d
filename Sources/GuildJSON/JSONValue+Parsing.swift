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

extension JSONValue {
    /// A fast path for readers of params that hold a `JSONValue` (see ``JSONReadable``): strings, integers,
    /// Booleans, null, arrays and objects as ``init(parsing:maximumDepth:)`` builds them. Nil (so `JSONDecoder`
    /// decides, as it always did) for a number that is not a 64-bit integer and for an object that names a key
    /// twice.
    public init?(exactly value: JSONScanner.Value, in bytes: UnsafeRawBufferPointer) {
        guard let built = Self.buildExactly(value, JSONScanner(maximumDepth: .max), bytes) else { return nil }
        self = built
    }

    private static func buildExactly(_ value: JSONScanner.Value, _ scanner: JSONScanner, _ bytes: UnsafeRawBufferPointer) -> JSONValue? {
        switch value.kind {
        case .null: return .null
        case .bool: return value.bool(in: bytes).map { .bool($0) }
        case .string: return value.string(in: bytes).map { .string($0) }
        case .number: return value.int64(in: bytes).map { .int($0) }
        case .array:
            var items: [JSONValue] = []
            for element in scanner.elements(of: value, in: bytes) {
                guard let item = Self.buildExactly(element, scanner, bytes) else { return nil }
                items.append(item)
            }
            return .array(items)
        case .object:
            var members: [String: JSONValue] = [:]
            for member in scanner.members(of: value, in: bytes) {
                guard members[member.key] == nil, let item = Self.buildExactly(member.value, scanner, bytes) else { return nil }
                members[member.key] = item
            }
            return .object(members)
        }
    }
}
