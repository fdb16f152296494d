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

        public static let access: AccessRequirement = .session
        public static let contract = MethodContract(
            summary:
                "Registers a trigger on a thing (owners and admins): when an uploaded state makes condition (the objects' query clauses, on the state's fields) turn from false to true, command is sent with firedByTriggerID. The condition's value on the latest state is its starting point; it never fires on replay or restart.",
            tags: ["trigger", "thing"],
            params: [
                .thingID, .init("condition", JSONSchema.object, required: true, "A clause: eq, prefix, range, in, not, and, or, hasField, all"),
                .init("command", commandRequestSchema, required: true, "The command to send: actions, issuer, schema, schemaVersion, ..."),
            ],
            result: "created",
            JSONSchema.object(required: ["triggerID"], ["triggerID": JSONSchema.string]),
            errors: thingReadErrors + [ErrorReason.queryNotSupported, ErrorReason.userNotFound, ErrorReason.groupNotFound],
            writes: true,
            example: .init(
                params: [
                    "thingID": ContractExamples.thingID, "condition": ContractExamples.condition,
                    "command": [
                        "actions": [["turnPower": ["power": true]]], "issuer": ContractExamples.owner, "schema": "SmartLight", "schemaVersion": 1,
                    ],
                ],
                result: ["triggerID": ContractExamples.triggerID]
            )
        )
    }

    /// `trigger.list`: a thing's triggers, oldest first.
    public enum List: RPCMethod {
        public typealias Params = ThingMethods.ThingRef
        public struct Result: Codable, Hashable, Sendable {
            public var triggers: [TriggerInfo]
            public init(triggers: [TriggerInfo]) { self.triggers = triggers }
        }
        public static let name = "trigger.list"

        public static let access: AccessRequirement = .principal
        public static let contract = MethodContract(
            summary: "A thing's triggers, oldest first: for its owners, the thing itself and admins.",
            tags: ["trigger", "thing"],
            params: [.thingID],
            result: "triggers",
            JSONSchema.object(
                required: ["triggers"],
                [
                    "triggers": JSONSchema.array(
                        of: JSONSchema.object(
                            required: ["triggerID", "thingID", "condition", "command", "enabled", "created"],
                            [
                                "triggerID": JSONSchema.string, "thingID": JSONSchema.string, "condition": JSONSchema.object,
                                "command": commandRequestSchema, "enabled": JSONSchema.boolean, "created": JSONSchema.integer,
                            ]
                        )
                    )
                ]
            ),
            errors: thingReadErrors,
            example: .init(params: ["thingID": ContractExamples.thingID], result: ["triggers": [ContractExamples.trigger]])
        )
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

        public static let access: AccessRequirement = .session
        public static let contract = triggerChange("Enables a trigger (owners and admins).", result: "enabled")
    }

    /// `trigger.disable`.
    public enum Disable: RPCMethod {
        public typealias Params = TriggerRef
        public typealias Result = Bool
        public static let name = "trigger.disable"

        public static let access: AccessRequirement = .session
        public static let contract = triggerChange(
            "Disables a trigger (owners and admins): it fires no more until enabled, and keeps following its condition meanwhile.",
            result: "disabled"
        )
    }

    /// `trigger.delete`.
    public enum Delete: RPCMethod {
        public typealias Params = TriggerRef
        public typealias Result = Bool
        public static let name = "trigger.delete"

        public static let access: AccessRequirement = .session
        public static let contract = triggerChange("Deletes a trigger (owners and admins).", result: "deleted")
    }
}

extension ContractExamples {
    static let triggerID: JSONValue = "tr.1e2d3c4b5a69788796a5b4c3d2e1f0a9"
    static let condition: JSONValue = ["type": "range", "field": "temperature", "lowerLimit": 30, "lowerIncluded": false]
    static let trigger: JSONValue = [
        "triggerID": triggerID, "thingID": thingID, "condition": condition,
        "command": ["actions": [["turnPower": ["power": true]]], "issuer": owner, "schema": "SmartLight", "schemaVersion": 1],
        "enabled": true, "created": 1_795_348_702_624,
    ]
}

/// The params naming a trigger.
private let triggerParams: [MethodContract.Param] = [.thingID, .init("triggerID", JSONSchema.string, required: true)]

/// The contract of a call that changes one trigger and answers true.
private func triggerChange(_ summary: String, result: String) -> MethodContract {
    MethodContract(
        summary: summary,
        tags: ["trigger", "thing"],
        params: triggerParams,
        result: result,
        JSONSchema.boolean,
        errors: thingReadErrors + [ErrorReason.triggerNotFound],
        writes: true,
        example: .init(params: ["thingID": ContractExamples.thingID, "triggerID": ContractExamples.triggerID], result: true)
    )
}
