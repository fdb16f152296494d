import GuildJSON

/// What `protocol/openrpc.json` says about one method beyond its name and access: a summary, its params and
/// result with their JSON schemas, the errors it may return, and one example call.
///
/// The document adds what follows from the method type's other declarations: `x-auth` (``RPCMethod/access``),
/// `x-expensive` and `SERVER_BUSY` (``RPCMethod/isExpensive``), `maxItems`/`maxProperties` and `TOO_MANY_ITEMS`
/// for list-valued params (``RPCMethod/itemLimits``), and `STORAGE_FULL` for methods that write (``writes``).
public struct MethodContract: Sendable {
    /// How params may be sent (OpenRPC's `paramStructure`).
    public enum ParamStructure: String, Sendable {
        /// As an object.
        case byName = "by-name"
        /// As an array.
        case byPosition = "by-position"
        /// Either way.
        case either
    }

    /// One param.
    public struct Param: Sendable {
        /// The param's name.
        public var name: String
        /// Its JSON schema.
        public var schema: JSONValue
        /// Whether a call must send it.
        public var required: Bool
        /// What it means, when the name does not say.
        public var description: String?

        /// Creates a param.
        public init(_ name: String, _ schema: JSONValue, required: Bool = false, _ description: String? = nil) {
            self.name = name
            self.schema = schema
            self.required = required
            self.description = description
        }
    }

    /// One example call: its params, by name and in order, and its result.
    public struct Example: Sendable {
        /// The params.
        public var params: KeyValuePairs<String, JSONValue>
        /// The result.
        public var result: JSONValue

        /// Creates an example.
        public init(params: KeyValuePairs<String, JSONValue> = [:], result: JSONValue) {
            self.params = params
            self.result = result
        }
    }

    /// One sentence (or a few) on what the method does.
    public var summary: String
    /// A longer description, when the summary is not enough.
    public var description: String?
    /// The areas the method belongs to (`user`, `group`, `im`, ...).
    public var tags: [String]
    /// How params may be sent.
    public var paramStructure: ParamStructure
    /// The params, in order.
    public var params: [Param]
    /// The result's name.
    public var resultName: String
    /// The result's JSON schema.
    public var result: JSONValue
    /// The `data.reason` of each error the method itself may return (``ErrorReason``), in the order documented.
    public var errors: [String]
    /// Whether a call writes to the database (and so may answer `STORAGE_FULL`, `STORAGE_UNAVAILABLE` and
    /// `WRITE_OUTCOME_UNKNOWN`).
    public var writes: Bool
    /// One example call.
    public var example: Example

    /// Creates a contract.
    public init(
        summary: String,
        description: String? = nil,
        tags: [String],
        paramStructure: ParamStructure = .byName,
        params: [Param] = [],
        result resultName: String,
        _ result: JSONValue,
        errors: [String] = [],
        writes: Bool = false,
        example: Example
    ) {
        self.summary = summary
        self.description = description
        self.tags = tags
        self.paramStructure = paramStructure
        self.params = params
        self.resultName = resultName
        self.result = result
        self.errors = errors
        self.writes = writes
        self.example = example
    }
}
