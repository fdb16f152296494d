/// Building a ``JSONValue`` tree from JSON text with ``JSONScanner`` (no `JSONDecoder`).
extension JSONValue {
    /// Parses one JSON text. Integers that fit in 64 bits are `.int`; other numbers `.double`.
    public init(parsing bytes: UnsafeRawBufferPointer, maximumDepth: Int = 128) throws(JSONScanner.Failure) {
        let scanner = JSONScanner(maximumDepth: maximumDepth)
        let root = try scanner.scan(bytes)
        guard let value = try Self.build(root, scanner, bytes, exactly: false) else {
            preconditionFailure("only an exact build declines a value")
        }
        self = value
    }

    /// Parses one JSON text held in a `String` (a database column's, for instance).
    public init(parsing text: String, maximumDepth: Int = 128) throws(JSONScanner.Failure) {
        var text = text
        let parsed = text.withUTF8 { utf8 in
            Result { () throws(JSONScanner.Failure) in try JSONValue(parsing: UnsafeRawBufferPointer(utf8), maximumDepth: maximumDepth) }
        }
        self = try parsed.get()
    }

    /// A fast path for readers of params that hold a `JSONValue` (see ``JSONReadable``): strings, integers,
    /// Booleans, null, arrays and objects as ``init(parsing:maximumDepth:)`` builds them. Nil (so `JSONDecoder`
    /// decides, as it always did) for a number that is not a 64-bit integer and for an object that names a key
    /// twice.
    public init?(exactly value: JSONScanner.Value, in bytes: UnsafeRawBufferPointer) {
        guard let built = try? Self.build(value, JSONScanner(maximumDepth: .max), bytes, exactly: true) else { return nil }
        self = built
    }

    /// The value of `value`; `exactly`, nil for what only `JSONDecoder` reads exactly (numbers that are not
    /// 64-bit integers, keys named twice), else those as `.double` and the last of the repeated keys.
    private static func build(
        _ value: JSONScanner.Value,
        _ scanner: JSONScanner,
        _ bytes: UnsafeRawBufferPointer,
        exactly: Bool
    ) throws(JSONScanner.Failure) -> JSONValue? {
        switch value.kind {
        case .null: return .null
        case .bool: return .bool(value.bool(in: bytes) ?? false)
        case .string: return .string(try JSONScanner.string(value, in: bytes))
        case .number:
            if let integer = value.int64(in: bytes) { return .int(integer) }
            guard !exactly else { return nil }
            let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[value.range]), as: UTF8.self)
            return .double(Double(text) ?? .nan)
        case .array:
            var items: [JSONValue] = []
            for element in scanner.elements(of: value, in: bytes) {
                guard let item = try Self.build(element, scanner, bytes, exactly: exactly) else { return nil }
                items.append(item)
            }
            return .array(items)
        case .object:
            var members: [String: JSONValue] = [:]
            for member in scanner.members(of: value, in: bytes) {
                guard !exactly || members[member.key] == nil,
                    let item = try Self.build(member.value, scanner, bytes, exactly: exactly)
                else { return nil }
                members[member.key] = item
            }
            return .object(members)
        }
    }
}
