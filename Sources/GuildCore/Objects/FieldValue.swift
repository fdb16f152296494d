import GuildJSON

/// A scalar an object's field holds and a query compares with: what the field index stores, one kind each
/// (Booleans, numbers, strings). Integers and decimals are both numbers and compare by value; strings compare
/// by their UTF-8 bytes, as the index orders them.
public enum FieldValue: Hashable, Sendable {
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)

    /// The scalar in `value`; nil for null, arrays, objects and non-finite numbers.
    public init?(_ value: JSONValue) {
        switch value {
        case .bool(let flag): self = .bool(flag)
        case .int(let number): self = .int(number)
        case .double(let number) where number.isFinite: self = .double(number)
        case .string(let text): self = .string(text)
        default: return nil
        }
    }

    /// The index's kind: Booleans, numbers and strings sort in that order.
    public var kind: Int {
        switch self {
        case .bool: 1
        case .int, .double: 2
        case .string: 3
        }
    }

    /// The JSON form.
    public var json: JSONValue {
        switch self {
        case .bool(let flag): .bool(flag)
        case .int(let number): .int(number)
        case .double(let number): .double(number)
        case .string(let text): .string(text)
        }
    }

    /// How two values of the same kind order; nil across kinds.
    public func compare(_ other: FieldValue) -> Int? {
        switch (self, other) {
        case (.bool(let a), .bool(let b)): return a == b ? 0 : (a ? 1 : -1)
        case (.int(let a), .int(let b)): return a == b ? 0 : (a < b ? -1 : 1)
        case (.string(let a), .string(let b)):
            if a.utf8.elementsEqual(b.utf8) { return 0 }
            return a.utf8.lexicographicallyPrecedes(b.utf8) ? -1 : 1
        default:
            guard let a = self.number, let b = other.number else { return nil }
            return a == b ? 0 : (a < b ? -1 : 1)
        }
    }

    private var number: Double? {
        switch self {
        case .int(let number): Double(number)
        case .double(let number): number
        default: nil
        }
    }
}
