import GuildJSON

extension ConformanceMethods.GetData {
    public static let access: AccessRequirement = .anyone
    public static let contract = MethodContract(
        summary: "JSON-RPC 2.0 specification example: returns [\"hello\", 5].",
        tags: ["conformance"],
        result: "data",
        ["type": "array"],
        example: .init(result: ["hello", 5])
    )
}

extension ConformanceMethods.NotifyHello {
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

extension ConformanceMethods.NotifySum {
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

extension ConformanceMethods.Subtract {
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

extension ConformanceMethods.Sum {
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

extension ConformanceMethods.Update {
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
