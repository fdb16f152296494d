import GuildJSON

/// `command.*`: commands owners send to things, and the results things post (protocol/things.md).
public enum CommandMethods: Sendable {
    /// What a command asks of a thing, as `command.send` and a trigger's stored command take it.
    public struct CommandRequest: Codable, Hashable, Sendable {
        /// `[{name: params}, ...]`: single-key objects, run in order.
        public var actions: [JSONValue]
        /// `user:ID` or `group:ID`: an owner of the thing.
        public var issuer: String
        public var schema: String
        public var schemaVersion: Int
        public var title: String?
        public var description: String?
        public var metadata: [String: JSONValue]?
        public init(
            actions: [JSONValue],
            issuer: String,
            schema: String,
            schemaVersion: Int,
            title: String? = nil,
            description: String? = nil,
            metadata: [String: JSONValue]? = nil
        ) {
            self.actions = actions
            self.issuer = issuer
            self.schema = schema
            self.schemaVersion = schemaVersion
            self.title = title
            self.description = description
            self.metadata = metadata
        }
    }

    /// `command.send`: an owner sends a command to a thing.
    public enum Send: RPCMethod {
        public struct Params: Codable, Hashable, Sendable {
            public var thingID: String
            public var actions: [JSONValue]
            public var issuer: String
            public var schema: String
            public var schemaVersion: Int
            public var title: String?
            public var description: String?
            public var metadata: [String: JSONValue]?
            public init(thingID: String, _ request: CommandRequest) {
                self.thingID = thingID
                self.actions = request.actions
                self.issuer = request.issuer
                self.schema = request.schema
                self.schemaVersion = request.schemaVersion
                self.title = request.title
                self.description = request.description
                self.metadata = request.metadata
            }
            /// The command part.
            public var request: CommandRequest {
                CommandRequest(
                    actions: self.actions,
                    issuer: self.issuer,
                    schema: self.schema,
                    schemaVersion: self.schemaVersion,
                    title: self.title,
                    description: self.description,
                    metadata: self.metadata
                )
            }
        }
        public struct Result: Codable, Hashable, Sendable {
            public var commandID: String
            public init(commandID: String) { self.commandID = commandID }
        }
        public static let name = "command.send"
        public static let itemLimits: [String: Int] = ["actions": 100, "metadata": 100]

        public static let access: AccessRequirement = .session
        public static let contract = MethodContract(
            summary:
                "Sends a command to a thing. The issuer must be an owner of the thing, and the caller must act for it (the user themself, a member of the issuing group, or an admin). The thing receives commandReceived (with the actions) on its subscription, and again on resume until it posts results; the state is SENDING, then DELIVERED once the notification reached a connection of the thing. A thing has at most 1,000 commands pending (SENDING or DELIVERED): past that, QUOTA_EXCEEDED (data: limit, usage) until it posts results.",
            tags: ["command", "thing"],
            params: [.thingID] + commandRequestParams,
            result: "sent",
            JSONSchema.object(required: ["commandID"], ["commandID": JSONSchema.string]),
            errors: thingReadErrors + [ErrorReason.userNotFound, ErrorReason.groupNotFound, ErrorReason.quotaExceeded],
            writes: true,
            example: .init(
                params: [
                    "thingID": ContractExamples.thingID, "actions": ContractExamples.actions, "issuer": ContractExamples.owner,
                    "schema": "SmartLight", "schemaVersion": 1,
                ],
                result: ["commandID": ContractExamples.commandID]
            )
        )
    }

    /// A command's record (Kii's field names).
    public struct CommandInfo: Codable, Hashable, Sendable {
        public var commandID: String
        public var thingID: String
        public var issuer: String
        public var actions: [JSONValue]
        public var actionResults: [JSONValue]?
        /// SENDING, DELIVERED, DONE or INCOMPLETE.
        public var commandState: String
        public var firedByTriggerID: String?
        public var schema: String
        public var schemaVersion: Int
        public var title: String?
        public var description: String?
        public var metadata: [String: JSONValue]?
        public var created: Int64
        public var modified: Int64
        public init(
            commandID: String,
            thingID: String,
            issuer: String,
            actions: [JSONValue],
            actionResults: [JSONValue]?,
            commandState: String,
            firedByTriggerID: String?,
            schema: String,
            schemaVersion: Int,
            title: String?,
            description: String?,
            metadata: [String: JSONValue]?,
            created: Int64,
            modified: Int64
        ) {
            self.commandID = commandID
            self.thingID = thingID
            self.issuer = issuer
            self.actions = actions
            self.actionResults = actionResults
            self.commandState = commandState
            self.firedByTriggerID = firedByTriggerID
            self.schema = schema
            self.schemaVersion = schemaVersion
            self.title = title
            self.description = description
            self.metadata = metadata
            self.created = created
            self.modified = modified
        }
    }

    /// `command.get`.
    public enum Get: RPCMethod {
        public struct Params: Codable, Hashable, Sendable {
            public var thingID: String
            public var commandID: String
            public init(thingID: String, commandID: String) {
                self.thingID = thingID
                self.commandID = commandID
            }
        }
        public typealias Result = CommandInfo
        public static let name = "command.get"

        public static let access: AccessRequirement = .principal
        public static let contract = MethodContract(
            summary: "A command with its state and results (in the actions' order): for the thing's owners, the thing itself and admins.",
            tags: ["command", "thing"],
            params: [.thingID, .init("commandID", JSONSchema.string, required: true)],
            result: "command",
            commandSchema,
            errors: thingReadErrors + [ErrorReason.commandNotFound],
            example: .init(params: ["thingID": ContractExamples.thingID, "commandID": ContractExamples.commandID], result: ContractExamples.command)
        )
    }

    /// `command.list`: a thing's commands, newest first, paged.
    public enum List: RPCMethod {
        public struct Params: Codable, Hashable, Sendable {
            public var thingID: String
            public var limit: Int?
            public var paginationKey: String?
            public init(thingID: String, limit: Int? = nil, paginationKey: String? = nil) {
                self.thingID = thingID
                self.limit = limit
                self.paginationKey = paginationKey
            }
        }
        public struct Result: Codable, Hashable, Sendable {
            public var commands: [CommandInfo]
            public var nextPaginationKey: String?
            public init(commands: [CommandInfo], nextPaginationKey: String?) {
                self.commands = commands
                self.nextPaginationKey = nextPaginationKey
            }
        }
        public static let name = "command.list"

        public static let access: AccessRequirement = .principal
        public static let contract = MethodContract(
            summary:
                "A thing's commands, newest first, at most limit (default and maximum 100) per page; nextPaginationKey continues (absent on the last page).",
            tags: ["command", "thing"],
            params: [
                .thingID, .init("limit", JSONSchema.integer, "1-100"),
                .init("paginationKey", JSONSchema.string, "From the previous page, by the same caller; valid until the daemon restarts"),
            ],
            result: "page",
            JSONSchema.object(required: ["commands"], ["commands": JSONSchema.array(of: commandSchema), "nextPaginationKey": JSONSchema.string]),
            errors: thingReadErrors,
            example: .init(params: ["thingID": ContractExamples.thingID, "limit": 10], result: ["commands": [ContractExamples.command]])
        )
    }

    /// `command.putResults`: the thing posts one result per action, in the actions' order.
    public enum PutResults: RPCMethod {
        public struct Params: Codable, Hashable, Sendable {
            public var thingID: String
            public var commandID: String
            /// `[{name: {succeeded, errorMessage?, data?}}, ...]`.
            public var actionResults: [JSONValue]
            public init(thingID: String, commandID: String, actionResults: [JSONValue]) {
                self.thingID = thingID
                self.commandID = commandID
                self.actionResults = actionResults
            }
        }
        public struct Result: Codable, Hashable, Sendable {
            public var commandState: String
            public init(commandState: String) { self.commandState = commandState }
        }
        public static let name = "command.putResults"
        public static let itemLimits: [String: Int] = ["actionResults": 100]

        public static let access: AccessRequirement = .principal
        public static let contract = MethodContract(
            summary:
                "The thing posts a command's results, one per action in the actions' order: {name: {succeeded, errorMessage?, data?}}. The command becomes DONE when every action succeeded, else INCOMPLETE, and commandResult (the commandID only) goes to the installations of its sender: all of a normal user's, only the sending one for a pseudo user.",
            tags: ["command", "thing"],
            params: [
                .thingID, .init("commandID", JSONSchema.string, required: true),
                .init(
                    "actionResults",
                    JSONSchema.array(of: JSONSchema.object),
                    required: true,
                    "One {name: {succeeded, errorMessage?, data?}} per action, in order"
                ),
            ],
            result: "state",
            JSONSchema.object(required: ["commandState"], ["commandState": JSONSchema.oneOf(["DONE", "INCOMPLETE"])]),
            errors: thingReadErrors + [ErrorReason.commandNotFound, ErrorReason.commandAlreadyDone],
            writes: true,
            example: .init(
                params: [
                    "thingID": ContractExamples.thingID, "commandID": ContractExamples.commandID,
                    "actionResults": [["turnPower": ["succeeded": true]], ["setBrightness": ["succeeded": false, "errorMessage": "too bright"]]],
                ],
                result: ["commandState": "INCOMPLETE"]
            )
        )
    }
}

extension ContractExamples {
    static let commandID: JSONValue = "5b1d9e0c7a2f4e3d8c6b1a0f9e8d7c6b"
    static let actions: JSONValue = [["turnPower": ["power": true]], ["setBrightness": ["brightness": 80]]]
    /// A command with its results.
    static let command: JSONValue = [
        "commandID": commandID, "thingID": thingID, "issuer": owner, "actions": actions,
        "actionResults": [["turnPower": ["succeeded": true]], ["setBrightness": ["succeeded": false, "errorMessage": "too bright"]]],
        "commandState": "INCOMPLETE", "schema": "SmartLight", "schemaVersion": 1, "created": 1_795_348_760_000,
        "modified": 1_795_348_760_120,
    ]
}

/// The params of a command request (`command.send`, a trigger's `command`).
let commandRequestParams: [MethodContract.Param] = [
    .init("actions", JSONSchema.array(of: JSONSchema.object), required: true, "1-100 single-key objects {name: params}, run in order"),
    .init("issuer", JSONSchema.string, required: true, "user:ID or group:ID: an owner of the thing the caller acts for"),
    .init("schema", JSONSchema.string, required: true, "1-128 characters"),
    .init("schemaVersion", JSONSchema.integer, required: true, "At least 1"),
    .init("title", JSONSchema.string, "At most 50 characters"),
    .init("description", JSONSchema.string, "At most 200 characters"),
    .init("metadata", JSONSchema.object, "At most 10 KB"),
]

/// The schema of a command request.
let commandRequestSchema = JSONSchema.object(
    required: ["actions", "issuer", "schema", "schemaVersion"],
    Dictionary(uniqueKeysWithValues: commandRequestParams.map { ($0.name, $0.schema) })
)

/// The schema of a command's record.
let commandSchema = JSONSchema.object(
    required: ["commandID", "thingID", "issuer", "actions", "commandState", "schema", "schemaVersion", "created", "modified"],
    [
        "commandID": JSONSchema.string, "thingID": JSONSchema.string, "issuer": JSONSchema.string,
        "actions": JSONSchema.array(of: JSONSchema.object), "actionResults": JSONSchema.array(of: JSONSchema.object),
        "commandState": JSONSchema.oneOf(["SENDING", "DELIVERED", "DONE", "INCOMPLETE"]), "firedByTriggerID": JSONSchema.string,
        "schema": JSONSchema.string, "schemaVersion": JSONSchema.integer, "title": JSONSchema.string,
        "description": JSONSchema.string, "metadata": JSONSchema.object, "created": JSONSchema.integer, "modified": JSONSchema.integer,
    ]
)
