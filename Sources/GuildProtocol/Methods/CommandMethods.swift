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
    }
}
