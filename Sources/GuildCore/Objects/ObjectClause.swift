import GuildJSON

/// A query clause of Kii's query language (`all`, `eq`, `prefix`, `range`, `in`, `not`, `and`, `or`,
/// `hasField`), parsed and checked against the limits below. Fields are dotted paths (`address.city`) that
/// reach into nested objects; see protocol/objects.md for the exact semantics.
public indirect enum ObjectClause: Hashable, Sendable {
    case all
    case eq(FieldPath, FieldValue)
    case prefix(FieldPath, String)
    case range(FieldPath, lower: Bound?, upper: Bound?)
    case `in`(FieldPath, [FieldValue])
    case not(ObjectClause)
    case and([ObjectClause])
    case or([ObjectClause])
    case hasField(FieldPath, FieldType)

    /// A range's limit.
    public struct Bound: Hashable, Sendable {
        public var value: FieldValue
        public var included: Bool

        public init(_ value: FieldValue, included: Bool) {
            self.value = value
            self.included = included
        }
    }

    /// `hasField`'s field types.
    public enum FieldType: String, Hashable, Sendable, CaseIterable {
        case string = "STRING"
        case integer = "INTEGER"
        case decimal = "DECIMAL"
        case boolean = "BOOLEAN"
    }

    /// The deepest nesting of clauses.
    public static let maximumDepth = 16
    /// The most clauses in one query.
    public static let maximumClauses = 256
    /// The most values of an `in` clause (Kii's limit).
    public static let maximumInValues = 200
    /// The longest string a clause compares with, in bytes.
    public static let maximumStringBytes = 4096
}

/// A dotted path to a field: `name`, or `address.city` for a field of a nested object.
public struct FieldPath: Hashable, Sendable, CustomStringConvertible {
    /// The path as written.
    public let text: String
    /// Its keys, outermost first.
    public let keys: [String]

    /// The most keys in a path; the field index reaches as deep.
    public static let maximumKeys = 8

    /// The reserved fields a query may name (kept by Guild, not by the client).
    public static let reserved: Set<String> = ["_id", "_owner", "_created", "_modified", "_version"]

    /// Parses a path; `invalidInput` naming `field` when it is empty, too deep, or names a reserved field
    /// Guild does not keep.
    public init(_ text: String, field: String) throws(GuildError) {
        let keys = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard !text.isEmpty, text.utf8.count <= 1024, !keys.contains(where: \.isEmpty) else {
            throw .invalidInput("a field is a dotted path of non-empty keys (at most 1024 bytes)", field: field)
        }
        guard keys.count <= Self.maximumKeys else {
            throw .invalidInput("a field path has at most \(Self.maximumKeys) keys", field: field)
        }
        if keys[0].hasPrefix("_") && (keys.count > 1 || !Self.reserved.contains(keys[0])) {
            throw .invalidInput(
                "fields starting with _ are reserved; queryable: \(Self.reserved.sorted().joined(separator: ", "))",
                field: field
            )
        }
        self.text = text
        self.keys = keys
    }

    public var description: String { self.text }

    /// The value at the path in `object`, nil when absent (or when a key on the way is not an object).
    public func value(in object: [String: JSONValue]) -> JSONValue? {
        var current = object
        for key in self.keys.dropLast() {
            guard case .object(let next)? = current[key] else { return nil }
            current = next
        }
        return current[self.keys[self.keys.count - 1]]
    }
}
