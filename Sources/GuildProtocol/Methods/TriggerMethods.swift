import GuildJSON

/// `trigger.*`: Thing-IF's triggers (protocol/things.md): a predicate (a condition on the thing's states with its
/// `triggersWhen`, a cron schedule, a single time) and an action (a command to the thing, or a `triggerFired`
/// event for a subscribed program).
public enum TriggerMethods: Sendable {
    /// A trigger as the methods show it.
    public struct TriggerInfo: Codable, Hashable, Sendable {
        public var triggerID: String
        public var thingID: String
        /// Thing-IF's predicate: `{eventSource: STATES, condition, triggersWhen}`, `{eventSource: SCHEDULE,
        /// schedule, timeZone}` or `{eventSource: SCHEDULE_ONCE, scheduleAt}`.
        public var predicate: JSONValue
        /// `COMMAND` or `NOTIFY`.
        public var triggersWhat: String
        /// The command sent, for `COMMAND`.
        public var command: CommandMethods.CommandRequest?
        /// What a `NOTIFY` trigger's events carry.
        public var parameters: JSONValue?
        public var title: String?
        public var description: String?
        public var enabled: Bool
        /// A schedule's next due time (ms since the Unix epoch); absent for a state predicate and once a single
        /// time has fired.
        public var nextFireAt: Int64?
        public var created: Int64
        public var modified: Int64
        /// A `STATES` predicate's condition, as the first trigger methods showed it.
        public var condition: JSONValue?
        public init(
            triggerID: String,
            thingID: String,
            predicate: JSONValue,
            triggersWhat: String,
            command: CommandMethods.CommandRequest?,
            parameters: JSONValue?,
            title: String?,
            description: String?,
            enabled: Bool,
            nextFireAt: Int64?,
            created: Int64,
            modified: Int64,
            condition: JSONValue?
        ) {
            self.triggerID = triggerID
            self.thingID = thingID
            self.predicate = predicate
            self.triggersWhat = triggersWhat
            self.command = command
            self.parameters = parameters
            self.title = title
            self.description = description
            self.enabled = enabled
            self.nextFireAt = nextFireAt
            self.created = created
            self.modified = modified
            self.condition = condition
        }
    }

    /// What `trigger.create` and `trigger.patch` take besides the ids.
    public struct TriggerSpec: Codable, Hashable, Sendable {
        /// Thing-IF's predicate object.
        public var predicate: JSONValue?
        /// Shorthand for a `STATES` predicate with `CONDITION_FALSE_TO_TRUE` (the first trigger methods).
        public var condition: JSONValue?
        /// `COMMAND` (the default when `command` is given) or `NOTIFY`.
        public var triggersWhat: String?
        public var command: CommandMethods.CommandRequest?
        public var parameters: JSONValue?
        public var title: String?
        public var description: String?
        public init(
            predicate: JSONValue? = nil,
            condition: JSONValue? = nil,
            triggersWhat: String? = nil,
            command: CommandMethods.CommandRequest? = nil,
            parameters: JSONValue? = nil,
            title: String? = nil,
            description: String? = nil
        ) {
            self.predicate = predicate
            self.condition = condition
            self.triggersWhat = triggersWhat
            self.command = command
            self.parameters = parameters
            self.title = title
            self.description = description
        }
    }

    /// `trigger.create`: an owner registers a trigger.
    public enum Create: RPCMethod {
        /// The thing's id beside the trigger's members, in one object on the wire.
        public struct Params: Codable, Hashable, Sendable {
            public var thingID: String
            public var spec: TriggerSpec
            public init(thingID: String, _ spec: TriggerSpec) {
                self.thingID = thingID
                self.spec = spec
            }
            /// The first form: a state condition that sends `command` when it turns true.
            public init(thingID: String, condition: JSONValue, command: CommandMethods.CommandRequest) {
                self.init(thingID: thingID, TriggerSpec(condition: condition, command: command))
            }
            private enum CodingKeys: String, CodingKey { case thingID }
            public init(from decoder: any Decoder) throws {
                self.thingID = try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .thingID)
                self.spec = try TriggerSpec(from: decoder)
            }
            public func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(self.thingID, forKey: .thingID)
                try self.spec.encode(to: encoder)
            }
        }
        public struct Result: Codable, Hashable, Sendable {
            public var triggerID: String
            /// A schedule's first due time.
            public var nextFireAt: Int64?
            /// The time zone a `SCHEDULE` runs in (the daemon's, when the predicate named none).
            public var timeZone: String?
            public init(triggerID: String, nextFireAt: Int64? = nil, timeZone: String? = nil) {
                self.triggerID = triggerID
                self.nextFireAt = nextFireAt
                self.timeZone = timeZone
            }
        }
        public static let name = "trigger.create"

        public static let access: AccessRequirement = .session
        public static let contract = MethodContract(
            summary:
                "Registers a trigger on a thing (owners and admins). predicate is Thing-IF's: {eventSource: STATES, condition (the objects' query clauses on the state's top-level fields), triggersWhen: CONDITION_TRUE | CONDITION_FALSE_TO_TRUE (default) | CONDITION_CHANGED}, {eventSource: SCHEDULE, schedule (five cron fields), timeZone (default: the daemon's, stated in the reply)} or {eventSource: SCHEDULE_ONCE, scheduleAt (ms, in the future)}; condition alone is a STATES predicate. triggersWhat COMMAND sends command (issuer: an owner the caller acts for) with firedByTriggerID; NOTIFY appends a triggerFired event with parameters to the owners and the creator. A state condition's value on the latest state is its starting point; a schedule due while the daemon was down fires once at start within 15 minutes, else it is recorded as missed.",
            tags: ["trigger", "thing"],
            params: [.thingID] + triggerSpecParams,
            result: "created",
            JSONSchema.object(
                required: ["triggerID"],
                ["triggerID": JSONSchema.string, "nextFireAt": JSONSchema.integer, "timeZone": JSONSchema.string]
            ),
            errors: thingReadErrors + [ErrorReason.queryNotSupported, ErrorReason.userNotFound, ErrorReason.groupNotFound],
            writes: true,
            example: .init(
                params: [
                    "thingID": ContractExamples.thingID,
                    "predicate": ["eventSource": "SCHEDULE", "schedule": "0 7 * * *", "timeZone": "Europe/Berlin"],
                    "triggersWhat": "COMMAND",
                    "command": [
                        "actions": [["turnPower": ["power": true]]], "issuer": ContractExamples.owner, "schema": "SmartLight", "schemaVersion": 1,
                    ],
                    "title": "Lamp on at 7",
                ],
                result: ["triggerID": ContractExamples.triggerID, "nextFireAt": 1_795_413_600_000, "timeZone": "Europe/Berlin"]
            )
        )
    }

    /// `trigger.patch`: changes a trigger's predicate, action, title or description.
    public enum Patch: RPCMethod {
        /// The ids beside the members to change, in one object on the wire.
        public struct Params: Codable, Hashable, Sendable {
            public var thingID: String
            public var triggerID: String
            public var spec: TriggerSpec
            public init(thingID: String, triggerID: String, _ spec: TriggerSpec) {
                self.thingID = thingID
                self.triggerID = triggerID
                self.spec = spec
            }
            private enum CodingKeys: String, CodingKey { case thingID, triggerID }
            public init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                self.thingID = try container.decode(String.self, forKey: .thingID)
                self.triggerID = try container.decode(String.self, forKey: .triggerID)
                self.spec = try TriggerSpec(from: decoder)
            }
            public func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(self.thingID, forKey: .thingID)
                try container.encode(self.triggerID, forKey: .triggerID)
                try self.spec.encode(to: encoder)
            }
        }
        public typealias Result = TriggerInfo
        public static let name = "trigger.patch"

        public static let access: AccessRequirement = .session
        public static let contract = MethodContract(
            summary:
                "Changes a trigger (owners and admins): what is given replaces what it had (predicate or condition, triggersWhat with command or parameters, title, description; an empty title or description removes it). A new predicate starts afresh as at creation; the trigger's results stay. Answers the trigger as it is now.",
            tags: ["trigger", "thing"],
            params: triggerParams + triggerSpecParams,
            result: "trigger",
            triggerInfoSchema,
            errors: thingReadErrors + [
                ErrorReason.triggerNotFound, ErrorReason.queryNotSupported, ErrorReason.userNotFound, ErrorReason.groupNotFound,
            ],
            writes: true,
            example: .init(
                params: ["thingID": ContractExamples.thingID, "triggerID": ContractExamples.triggerID, "title": "Too warm"],
                result: ContractExamples.trigger
            )
        )
    }

    /// `trigger.get`: one trigger.
    public enum Get: RPCMethod {
        public typealias Params = TriggerRef
        public typealias Result = TriggerInfo
        public static let name = "trigger.get"

        public static let access: AccessRequirement = .principal
        public static let contract = MethodContract(
            summary: "A trigger: for the thing's owners, the thing itself and admins.",
            tags: ["trigger", "thing"],
            params: triggerParams,
            result: "trigger",
            triggerInfoSchema,
            errors: thingReadErrors + [ErrorReason.triggerNotFound],
            example: .init(params: ["thingID": ContractExamples.thingID, "triggerID": ContractExamples.triggerID], result: ContractExamples.trigger)
        )
    }

    /// One firing of a trigger as `trigger.results` shows it.
    public struct TriggerResult: Codable, Hashable, Sendable {
        /// When it was evaluated, ms since the Unix epoch.
        public var firedAt: Int64
        /// When a schedule was due.
        public var dueAt: Int64?
        /// Why: `STATES`, `SCHEDULE` or `SCHEDULE_ONCE`.
        public var eventSource: String
        /// `COMMAND_SENT`, `NOTIFIED`, `SKIPPED` or `MISSED`.
        public var outcome: String
        public var commandID: String?
        /// Why nothing was done, for `SKIPPED` and `MISSED`.
        public var reason: String?
        public init(firedAt: Int64, dueAt: Int64?, eventSource: String, outcome: String, commandID: String?, reason: String?) {
            self.firedAt = firedAt
            self.dueAt = dueAt
            self.eventSource = eventSource
            self.outcome = outcome
            self.commandID = commandID
            self.reason = reason
        }
    }

    /// `trigger.results`: a trigger's firings, newest first, paged.
    public enum Results: RPCMethod {
        public struct Params: Codable, Hashable, Sendable {
            public var thingID: String
            public var triggerID: String
            public var limit: Int?
            public var cursor: String?
            public init(thingID: String, triggerID: String, limit: Int? = nil, cursor: String? = nil) {
                self.thingID = thingID
                self.triggerID = triggerID
                self.limit = limit
                self.cursor = cursor
            }
        }
        public struct Result: Codable, Hashable, Sendable {
            public var results: [TriggerResult]
            public var nextCursor: String?
            public init(results: [TriggerResult], nextCursor: String?) {
                self.results = results
                self.nextCursor = nextCursor
            }
        }
        public static let name = "trigger.results"

        public static let access: AccessRequirement = .principal
        public static let contract = MethodContract(
            summary:
                "A trigger's firings, newest first (the latest 1,000 at least are kept), at most limit (default and maximum 100) per page; nextCursor continues (absent on the last page). Each: firedAt, dueAt (schedules), eventSource, outcome (COMMAND_SENT with commandID, NOTIFIED, SKIPPED or MISSED with reason). For the thing's owners, the thing itself and admins.",
            tags: ["trigger", "thing"],
            params: triggerParams + [
                .init("limit", JSONSchema.integer, "1-100"),
                .init("cursor", JSONSchema.string, "From the previous page, by the same caller; valid until the daemon restarts"),
            ],
            result: "page",
            JSONSchema.object(
                required: ["results"],
                [
                    "results": JSONSchema.array(
                        of: JSONSchema.object(
                            required: ["firedAt", "eventSource", "outcome"],
                            [
                                "firedAt": JSONSchema.integer, "dueAt": JSONSchema.integer,
                                "eventSource": JSONSchema.oneOf(["STATES", "SCHEDULE", "SCHEDULE_ONCE"]),
                                "outcome": JSONSchema.oneOf(["COMMAND_SENT", "NOTIFIED", "SKIPPED", "MISSED"]),
                                "commandID": JSONSchema.string, "reason": JSONSchema.string,
                            ]
                        )
                    ),
                    "nextCursor": JSONSchema.string,
                ]
            ),
            errors: thingReadErrors + [ErrorReason.triggerNotFound],
            example: .init(
                params: ["thingID": ContractExamples.thingID, "triggerID": ContractExamples.triggerID, "limit": 10],
                result: [
                    "results": [
                        [
                            "firedAt": 1_795_413_600_004, "dueAt": 1_795_413_600_000, "eventSource": "SCHEDULE", "outcome": "COMMAND_SENT",
                            "commandID": ContractExamples.commandID,
                        ]
                    ]
                ]
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
            JSONSchema.object(required: ["triggers"], ["triggers": JSONSchema.array(of: triggerInfoSchema)]),
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
        "triggerID": triggerID, "thingID": thingID,
        "predicate": ["eventSource": "STATES", "condition": condition, "triggersWhen": "CONDITION_FALSE_TO_TRUE"],
        "triggersWhat": "COMMAND",
        "command": ["actions": [["turnPower": ["power": true]]], "issuer": owner, "schema": "SmartLight", "schemaVersion": 1],
        "title": "Too warm", "enabled": true, "created": 1_795_348_702_624, "modified": 1_795_348_702_624, "condition": condition,
    ]
}

/// What a trigger is made of, as trigger.create takes it (trigger.patch takes each as optional).
private let triggerSpecParams: [MethodContract.Param] = [
    .init(
        "predicate",
        JSONSchema.object(
            required: ["eventSource"],
            [
                "eventSource": JSONSchema.oneOf(["STATES", "SCHEDULE", "SCHEDULE_ONCE"]), "condition": JSONSchema.object,
                "triggersWhen": JSONSchema.oneOf(["CONDITION_TRUE", "CONDITION_FALSE_TO_TRUE", "CONDITION_CHANGED"]),
                "schedule": JSONSchema.string, "timeZone": JSONSchema.string, "scheduleAt": JSONSchema.integer,
            ]
        ),
        "Thing-IF's predicate; or give condition"
    ),
    .init(
        "condition",
        JSONSchema.object,
        "A STATES predicate's condition with CONDITION_FALSE_TO_TRUE: eq, prefix, range, in, not, and, or, hasField, all"
    ),
    .init("triggersWhat", JSONSchema.oneOf(["COMMAND", "NOTIFY"]), "COMMAND (default) or NOTIFY"),
    .init("command", commandRequestSchema, "For COMMAND: actions, issuer, schema, schemaVersion, ..."),
    .init("parameters", JSONSchema.object, "For NOTIFY: passed on in each triggerFired event (at most 10 KB)"),
    .init("title", JSONSchema.string, "At most 50 characters"),
    .init("description", JSONSchema.string, "At most 200 characters"),
]

/// A trigger as the methods show it.
private let triggerInfoSchema = JSONSchema.object(
    required: ["triggerID", "thingID", "predicate", "triggersWhat", "enabled", "created", "modified"],
    [
        "triggerID": JSONSchema.string, "thingID": JSONSchema.string, "predicate": JSONSchema.object,
        "triggersWhat": JSONSchema.oneOf(["COMMAND", "NOTIFY"]), "command": commandRequestSchema, "parameters": JSONSchema.object,
        "title": JSONSchema.string, "description": JSONSchema.string, "enabled": JSONSchema.boolean, "nextFireAt": JSONSchema.integer,
        "created": JSONSchema.integer, "modified": JSONSchema.integer, "condition": JSONSchema.object,
    ]
)

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
