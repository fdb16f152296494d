import GuildJSON

/// `trigger.*`: commands a thing's state sends by itself (Thing-IF's triggers; protocol/things.md).
public enum TriggerMethods: Sendable {
    /// A trigger as the methods show it.
    public struct TriggerInfo: Codable, Hashable, Sendable {
        public var triggerID: String
        public var thingID: String
        /// The condition, in the objects' query clause language, on the state's fields.
        public var condition: JSONValue
        public var command: CommandMethods.CommandRequest
        public var enabled: Bool
        public var created: Int64
        public init(
            triggerID: String,
            thingID: String,
            condition: JSONValue,
            command: CommandMethods.CommandRequest,
            enabled: Bool,
            created: Int64
        ) {
            self.triggerID = triggerID
            self.thingID = thingID
            self.condition = condition
            self.command = command
            self.enabled = enabled
            self.created = created
        }
    }

    /// `trigger.create`: an owner registers a trigger that sends `command` when `condition` turns true.
    public enum Create: RPCMethod {
        public struct Params: Codable, Hashable, Sendable {
            public var thingID: String
            public var condition: JSONValue
            public var command: CommandMethods.CommandRequest
            public init(thingID: String, condition: JSONValue, command: CommandMethods.CommandRequest) {
                self.thingID = thingID
                self.condition = condition
                self.command = command
            }
        }
        public struct Result: Codable, Hashable, Sendable {
            public var triggerID: String
            public init(triggerID: String) { self.triggerID = triggerID }
        }
        public static let name = "trigger.create"
    }

    /// `trigger.list`: a thing's triggers, oldest first.
    public enum List: RPCMethod {
        public typealias Params = ThingMethods.ThingRef
        public struct Result: Codable, Hashable, Sendable {
            public var triggers: [TriggerInfo]
            public init(triggers: [TriggerInfo]) { self.triggers = triggers }
        }
        public static let name = "trigger.list"
    }

    /// Params naming one trigger.
    public struct TriggerRef: Codable, Hashable, Sendable {
        public var thingID: String
        public var triggerID: String
        public init(thingID: String, triggerID: String) {
            self.thingID = thingID
            self.triggerID = triggerID
        }
    }

    /// `trigger.enable`.
    public enum Enable: RPCMethod {
        public typealias Params = TriggerRef
        public typealias Result = Bool
        public static let name = "trigger.enable"
    }

    /// `trigger.disable`.
    public enum Disable: RPCMethod {
        public typealias Params = TriggerRef
        public typealias Result = Bool
        public static let name = "trigger.disable"
    }

    /// `trigger.delete`.
    public enum Delete: RPCMethod {
        public typealias Params = TriggerRef
        public typealias Result = Bool
        public static let name = "trigger.delete"
    }
}
