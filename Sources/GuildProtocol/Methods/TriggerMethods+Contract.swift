import GuildJSON

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

extension TriggerMethods.Create {
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

extension TriggerMethods.List {
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

extension TriggerMethods.Enable {
    public static let access: AccessRequirement = .session
    public static let contract = triggerChange("Enables a trigger (owners and admins).", result: "enabled")
}

extension TriggerMethods.Disable {
    public static let access: AccessRequirement = .session
    public static let contract = triggerChange(
        "Disables a trigger (owners and admins): it fires no more until enabled, and keeps following its condition meanwhile.",
        result: "disabled"
    )
}

extension TriggerMethods.Delete {
    public static let access: AccessRequirement = .session
    public static let contract = triggerChange("Deletes a trigger (owners and admins).", result: "deleted")
}
