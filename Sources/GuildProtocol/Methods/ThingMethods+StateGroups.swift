import GuildJSON

/// The grouped form of `thing.stateHistory` (Thing-IF's grouped queries, protocol/things.md): what it asks and
/// what each group answers.
extension ThingMethods {
    /// An aggregation a grouped `thing.stateHistory` computes per group, as Thing-IF writes it.
    public struct StateAggregationSpec: Codable, Hashable, Sendable {
        /// The most aggregations one query may ask for.
        public static let maximumCount = 10

        /// `COUNT`, `MAX`, `MIN`, `MEAN` or `SUM`.
        public var type: String
        /// A top-level field of the states: numeric for `MAX`, `MIN`, `MEAN` and `SUM`; for `COUNT`, the states
        /// that have it are counted (all of them without a field).
        public var field: String?
        /// The name the value is reported under (default: the type in lower case, `_`, the field).
        public var putAggregationInto: String?

        public init(type: String, field: String? = nil, putAggregationInto: String? = nil) {
            self.type = type
            self.field = field
            self.putAggregationInto = putAggregationInto
        }
    }

    /// A time range in ms since the Unix epoch, both ends included.
    public struct TimeRange: Codable, Hashable, Sendable {
        public var from: Int64
        public var to: Int64

        public init(from: Int64, to: Int64) {
            self.from = from
            self.to = to
        }
    }

    /// An aggregation's value in one group.
    public struct StateAggregationValue: Codable, Hashable, Sendable {
        public var type: String
        public var field: String?
        public var putAggregationInto: String
        /// An integer for `COUNT`, and for `MAX`, `MIN` and `SUM` of integers; else a number; null when the
        /// group has no value of the field.
        public var value: JSONValue

        public init(type: String, field: String?, putAggregationInto: String, value: JSONValue) {
            self.type = type
            self.field = field
            self.putAggregationInto = putAggregationInto
            self.value = value
        }
    }

    /// One group of a grouped `thing.stateHistory`: its range, with its aggregations' values or (a query
    /// without aggregations) its states.
    public struct StateGroup: Codable, Hashable, Sendable {
        public var range: TimeRange
        /// The values, in the order the aggregations were asked for.
        public var aggregations: [StateAggregationValue]?
        /// The group's states, by timestamp.
        public var objects: [StateInfo]?

        public init(range: TimeRange, aggregations: [StateAggregationValue]? = nil, objects: [StateInfo]? = nil) {
            self.range = range
            self.aggregations = aggregations
            self.objects = objects
        }
    }
}

/// The schema of an aggregation a grouped query asks for.
let stateAggregationSchema = JSONSchema.object(
    required: ["type"],
    [
        "type": JSONSchema.oneOf(["COUNT", "MAX", "MIN", "MEAN", "SUM"]), "field": JSONSchema.string,
        "putAggregationInto": JSONSchema.string,
    ]
)

/// The schema of one group of a grouped query's answer.
let stateGroupSchema = JSONSchema.object(
    required: ["range"],
    [
        "range": JSONSchema.object(required: ["from", "to"], ["from": JSONSchema.integer, "to": JSONSchema.integer]),
        "aggregations": JSONSchema.array(
            of: JSONSchema.object(
                required: ["type", "putAggregationInto", "value"],
                [
                    "type": JSONSchema.oneOf(["COUNT", "MAX", "MIN", "MEAN", "SUM"]), "field": JSONSchema.string,
                    "putAggregationInto": JSONSchema.string, "value": ["type": ["number", "null"]],
                ]
            )
        ),
        "objects": JSONSchema.array(of: stateSchema),
    ]
)
