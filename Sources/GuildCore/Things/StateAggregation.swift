import GuildJSON

/// One of Thing-IF's aggregations of a state history's group (data-things-messages.md §4.2): `COUNT` of the
/// states (or of those that have `field`), and `MAX`, `MIN`, `MEAN`, `SUM` of a numeric top-level field.
public struct StateAggregation: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case count = "COUNT"
        case max = "MAX"
        case min = "MIN"
        case mean = "MEAN"
        case sum = "SUM"
    }

    public var kind: Kind
    /// The top-level field; nil only for a `COUNT` of the states.
    public var field: String?
    /// The name the value is reported under (Thing-IF's `putAggregationInto`; default `kind_field`, lowercased kind).
    public var name: String

    /// The most aggregations one query may ask for.
    public static let maximum = 10

    public init(kind: Kind, field: String?, name: String? = nil) {
        self.kind = kind
        self.field = field
        self.name = name ?? ([kind.rawValue.lowercased()] + (field.map { [$0] } ?? [])).joined(separator: "_")
    }

    /// Parses `{type, field, putAggregationInto}`; failures are `invalidInput` naming `field`.
    public init(json: JSONValue, field: String = "aggregations") throws(GuildError) {
        guard let members = json.objectValue, let type = members["type"]?.stringValue, let kind = Kind(rawValue: type.uppercased()) else {
            throw .invalidInput(
                "an aggregation is {type: \(Kind.allCases.map(\.rawValue).joined(separator: "|")), field, putAggregationInto}",
                field: field
            )
        }
        let name = members["field"]?.stringValue
        if members["field"] != nil, name == nil || name?.isEmpty == true || name?.contains(".") == true {
            throw .invalidInput("an aggregation's field is a top-level field's name", field: field)
        }
        if kind != .count, name == nil { throw .invalidInput("\(kind.rawValue) needs a field", field: field) }
        let into = members["putAggregationInto"]
        if into != nil, into?.stringValue?.isEmpty ?? true {
            throw .invalidInput("putAggregationInto is a non-empty string", field: field)
        }
        self.init(kind: kind, field: name, name: into?.stringValue)
    }

    /// The aggregation's value over `totals` (the field's, or the states' count for a field-less `COUNT`): an
    /// integer for `COUNT`, and for `MAX`, `MIN` and `SUM` of integers; null when the group has no value.
    public func value(_ totals: FieldTotals) -> JSONValue {
        switch self.kind {
        case .count: return .int(totals.count)
        case _ where totals.numbers == 0: return .null
        case .max: return totals.number(totals.maximum)
        case .min: return totals.number(totals.minimum)
        case .sum: return totals.number(totals.sum)
        case .mean: return .double(totals.sum / Double(totals.numbers))
        }
    }
}

/// What a group's aggregations are computed from, for one field (or, as `count`, for the states): how many
/// states have it, how many of those are numbers, and their sum, minimum and maximum. Totals of parts merge
/// into the totals of the whole, so a group is the merge of its minutes.
public struct FieldTotals: Sendable, Hashable {
    /// States that have the field (or all states, for the states' count).
    public var count: Int64 = 0
    /// Of those, the ones whose value is a number (not a Boolean).
    public var numbers: Int64 = 0
    public var sum: Double = 0
    public var minimum: Double = .infinity
    public var maximum: Double = -.infinity
    /// Of the numbers, the ones with a fractional part (`MAX`, `MIN` and `SUM` are integers while there is none).
    public var decimals: Int64 = 0

    public init() {}

    /// Totals as a minute's rollup stores them: the minimum and maximum are nil when there is no number.
    public init(count: Int64, numbers: Int64 = 0, decimals: Int64 = 0, sum: Double = 0, minimum: Double? = nil, maximum: Double? = nil) {
        self.count = count
        self.numbers = numbers
        self.decimals = decimals
        self.sum = sum
        self.minimum = minimum ?? .infinity
        self.maximum = maximum ?? -.infinity
    }

    /// Whether every number was an integer (then `MAX`, `MIN` and `SUM` are integers).
    public var integers: Bool { self.decimals == 0 }

    /// The minimum as stored: nil when there is no number.
    public var storedMinimum: Double? { self.numbers > 0 && self.minimum.isFinite ? self.minimum : nil }

    /// The maximum as stored: nil when there is no number.
    public var storedMaximum: Double? { self.numbers > 0 && self.maximum.isFinite ? self.maximum : nil }

    /// Adds one state's value of the field (nil: the state does not have it).
    public mutating func add(_ value: JSONValue?) {
        guard let value else { return }
        self.count += 1
        let number: Double
        switch value {
        case .int(let integer): number = Double(integer)
        case .double(let double):
            number = double
            if double.rounded() != double { self.decimals += 1 }
        default: return
        }
        self.numbers += 1
        self.sum += number
        self.minimum = Swift.min(self.minimum, number)
        self.maximum = Swift.max(self.maximum, number)
    }

    /// Adds the totals of another part.
    public mutating func merge(_ other: FieldTotals) {
        self.count += other.count
        self.numbers += other.numbers
        self.sum += other.sum
        self.minimum = Swift.min(self.minimum, other.minimum)
        self.maximum = Swift.max(self.maximum, other.maximum)
        self.decimals += other.decimals
    }

    func number(_ value: Double) -> JSONValue {
        self.integers && abs(value) < 9.0e15 ? .int(Int64(value)) : .double(value)
    }
}
