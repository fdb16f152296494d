import GuildJSON

/// A parsed JSON value, as the fuzz targets' reference parser sees it: an oracle written independently of
/// `JSONScanner`, so that the two can be compared.
///
/// Strings are kept as their UTF-8 bytes (Swift's `String` equality would hide differences in normalization),
/// numbers as their literal text, and object members in order, duplicates included.
public indirect enum JSONTree: Equatable, Sendable {
    case null
    case bool(Bool)
    case number(String)
    case string([UInt8])
    case array([JSONTree])
    case object([Member])

    /// One object member.
    public struct Member: Equatable, Sendable {
        /// The key, unescaped, as UTF-8.
        public var key: [UInt8]
        /// The value.
        public var value: JSONTree

        /// Creates a member.
        public init(key: [UInt8], value: JSONTree) {
            self.key = key
            self.value = value
        }

        /// Creates a member with a `String` key.
        public init(_ key: String, _ value: JSONTree) {
            self.init(key: Array(key.utf8), value: value)
        }
    }

    /// A string value from Swift text.
    public static func text(_ value: String) -> JSONTree { .string(Array(value.utf8)) }

    /// The deepest nesting of arrays and objects: 0 for a scalar, 1 for `[]`.
    public var depth: Int {
        switch self {
        case .array(let elements): 1 + (elements.map(\.depth).max() ?? 0)
        case .object(let members): 1 + (members.map(\.value.depth).max() ?? 0)
        default: 0
        }
    }

    /// The value of the last member named `key` (JSON-RPC readers let the last duplicate win), for objects.
    public func last(_ key: String) -> JSONTree? {
        guard case .object(let members) = self else { return nil }
        let bytes = Array(key.utf8)
        return members.last { $0.key == bytes }?.value
    }

    /// Whether the value is a string whose bytes are `text`.
    public func isString(_ text: String) -> Bool {
        if case .string(let bytes) = self { return bytes == Array(text.utf8) }
        return false
    }
}
