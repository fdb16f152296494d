import GuildJSON

/// The example methods of the JSON-RPC 2.0 specification (`subtract`, `sum`, `get_data`, `update`,
/// `notify_hello`, `notify_sum`), served so the specification's own examples run verbatim against guildd.
/// They touch no state.
public enum ConformanceMethods: Sendable {
    /// `subtract`: `minuend - subtrahend`, by position (`[42, 23]`) or by name.
    public enum Subtract: RPCMethod {
        public struct Params: Codable, Hashable, Sendable {
            public var minuend: Double
            public var subtrahend: Double
            public init(minuend: Double, subtrahend: Double) {
                self.minuend = minuend
                self.subtrahend = subtrahend
            }
        }
        public typealias Result = JSONValue
        public static let name = "subtract"
        public static let positionalParameters = ["minuend", "subtrahend"]

        public static let access: AccessRequirement = .anyone
        public static let contract = MethodContract(
            summary: "JSON-RPC 2.0 specification example: minuend - subtrahend, by position or by name.",
            tags: ["conformance"],
            paramStructure: .either,
            params: [
                .init("minuend", JSONSchema.number, required: true),
                .init("subtrahend", JSONSchema.number, required: true),
            ],
            result: "difference",
            JSONSchema.number,
            errors: [ErrorReason.numberOutOfRange],
            example: .init(params: ["minuend": 42, "subtrahend": 23], result: 19)
        )
    }

    /// `sum`: the sum of the numbers given by position.
    public enum Sum: RPCMethod {
        public typealias Params = [Double]
        public typealias Result = JSONValue
        public static let name = "sum"

        public static let access: AccessRequirement = .anyone
        public static let contract = MethodContract(
            summary: "JSON-RPC 2.0 specification example: the sum of the numbers given by position.",
            tags: ["conformance"],
            paramStructure: .byPosition,
            params: [
                .init("numbers", JSONSchema.number)
            ],
            result: "sum",
            JSONSchema.number,
            errors: [ErrorReason.numberOutOfRange],
            example: .init(result: 0)
        )
    }

    /// `get_data`: returns `["hello", 5]`.
    public enum GetData: RPCMethod {
        public typealias Params = NoParams
        public typealias Result = JSONValue
        public static let name = "get_data"

        public static let access: AccessRequirement = .anyone
        public static let contract = MethodContract(
            summary: "JSON-RPC 2.0 specification example: returns [\"hello\", 5].",
            tags: ["conformance"],
            result: "data",
            ["type": "array"],
            example: .init(result: ["hello", 5])
        )
    }

    /// `update`, `notify_hello`, `notify_sum`: accept anything and return `null` (the specification sends them
    /// as notifications).
    public enum Update: RPCMethod {
        public typealias Params = JSONValue
        public typealias Result = JSONValue
        public static let name = "update"

        public static let access: AccessRequirement = .anyone
        public static let contract = MethodContract(
            summary: "JSON-RPC 2.0 specification example: accepts anything, returns null (usually sent as a notification).",
            tags: ["conformance"],
            paramStructure: .either,
            result: "nothing",
            ["type": "null"],
            example: .init(result: nil)
        )
    }

    /// `notify_hello`: see ``Update``.
    public enum NotifyHello: RPCMethod {
        public typealias Params = JSONValue
        public typealias Result = JSONValue
        public static let name = "notify_hello"

        public static let access: AccessRequirement = .anyone
        public static let contract = MethodContract(
            summary: "JSON-RPC 2.0 specification example: accepts anything, returns null (usually sent as a notification).",
            tags: ["conformance"],
            paramStructure: .either,
            result: "nothing",
            ["type": "null"],
            example: .init(result: nil)
        )
    }

    /// `notify_sum`: see ``Update``.
    public enum NotifySum: RPCMethod {
        public typealias Params = JSONValue
        public typealias Result = JSONValue
        public static let name = "notify_sum"

        public static let access: AccessRequirement = .anyone
        public static let contract = MethodContract(
            summary: "JSON-RPC 2.0 specification example: accepts anything, returns null (usually sent as a notification).",
            tags: ["conformance"],
            paramStructure: .either,
            result: "nothing",
            ["type": "null"],
            example: .init(result: nil)
        )
    }
}

extension ConformanceMethods {
    /// The JSON-RPC 2.0 specification's example methods, in the published contract (`protocol/openrpc.json`). A new method of the area is added here.
    public static let all: [any RPCMethod.Type] = [
        ConformanceMethods.GetData.self,
        ConformanceMethods.NotifyHello.self,
        ConformanceMethods.NotifySum.self,
        ConformanceMethods.Subtract.self,
        ConformanceMethods.Sum.self,
        ConformanceMethods.Update.self,
    ]
}
