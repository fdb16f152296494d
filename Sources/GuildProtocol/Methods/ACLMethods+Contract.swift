import GuildJSON

extension MethodContract.Param {
    /// The optional bucket of an ACL target.
    static let aclBucket = MethodContract.Param("bucket", JSONSchema.string, "A bucket of the scope (a bucket's or an object's ACL)")
    /// The optional object of an ACL target.
    static let aclObject = MethodContract.Param("objectID", JSONSchema.string, "An object of the bucket (an object's ACL)")
}

/// `{action, subject}` (and `fixed` in `acl.get`).
private let entrySchema = JSONSchema.object(
    required: ["action", "subject"],
    [
        "action": JSONSchema.oneOf([
            "CREATE_NEW_BUCKET", "CREATE_OBJECTS_IN_BUCKET", "QUERY_OBJECTS_IN_BUCKET", "READ_OBJECTS_IN_BUCKET",
            "DROP_BUCKET_WITH_ALL_CONTENT", "READ_EXISTING_OBJECT", "WRITE_EXISTING_OBJECT",
        ]),
        "subject": JSONSchema.string,
        "fixed": JSONSchema.boolean,
    ]
)

private let changeResultSchema = JSONSchema.object(
    required: ["succeeded", "failed"],
    [
        "succeeded": JSONSchema.array(of: entrySchema),
        "failed": JSONSchema.array(
            of: JSONSchema.object(
                required: ["action", "subject", "code", "reason", "message"],
                [
                    "action": JSONSchema.string, "subject": JSONSchema.string, "code": JSONSchema.integer, "reason": JSONSchema.string,
                    "message": JSONSchema.string,
                ]
            )
        ),
    ]
)

private let changeParams: [MethodContract.Param] = [
    .objectScope, .aclBucket, .aclObject,
    .init("entries", JSONSchema.array(of: entrySchema), required: true, "{action, subject} pairs; subjects in Kii's string form"),
    .init("atomic", JSONSchema.boolean, "All entries or none, in one transaction (the first failure is the call's error)"),
    .init("ensure", JSONSchema.boolean, "Entries already as asked count as succeeded"),
]

private let aclErrors = [
    ErrorReason.invalidInputData, ErrorReason.unauthorized, ErrorReason.permissionDenied, ErrorReason.groupNotFound,
    ErrorReason.userNotFound, ErrorReason.thingNotFound, ErrorReason.bucketNotFound, ErrorReason.objectNotFound,
]

extension ACLMethods.Get {
    public static let access: AccessRequirement = .anyone
    public static let contract = MethodContract(
        summary:
            "The ACL entries in force on a scope, bucket or object, defaults included, fixed ones marked (who may: the scope's administrators, i.e. an app admin, the group's owner, the user; for an object also its creator).",
        tags: ["acl"],
        params: [.objectScope, .aclBucket, .aclObject],
        result: "acl",
        JSONSchema.object(required: ["entries"], ["entries": JSONSchema.array(of: entrySchema)]),
        errors: aclErrors,
        example: .init(
            params: ["scope": "app", "bucket": "people"],
            result: [
                "entries": [
                    ["action": "CREATE_OBJECTS_IN_BUCKET", "subject": "UserID:ANY_AUTHENTICATED_USER", "fixed": false]
                ]
            ]
        )
    )
}

extension ACLMethods.Grant {
    public static let access: AccessRequirement = .anyone
    public static let contract = MethodContract(
        summary:
            "Grants entries on a scope, bucket or object (who may: as acl.get). Each entry on its own, as Kii: the reply lists succeeded and failed (a duplicate: ACL_ALREADY_EXISTS; an unknown user or group). atomic: all or none; ensure: entries already granted count as succeeded. A grant on a bucket that does not exist creates it. Those who could see the target, before or after, get aclChanged.",
        tags: ["acl"],
        params: changeParams,
        result: "change",
        changeResultSchema,
        errors: aclErrors + [ErrorReason.aclAlreadyExists],
        writes: true,
        example: .init(
            params: [
                "scope": "user:4f1c2e0a9b8d4c7e8f6a5b4c3d2e1f01", "bucket": "notes",
                "entries": [["action": "READ_OBJECTS_IN_BUCKET", "subject": "UserID:4f1c2e0a9b8d4c7e8f6a5b4c3d2e1f02"]],
            ],
            result: [
                "succeeded": [["action": "READ_OBJECTS_IN_BUCKET", "subject": "UserID:4f1c2e0a9b8d4c7e8f6a5b4c3d2e1f02"]],
                "failed": [],
            ]
        )
    )
}

extension ACLMethods.Revoke {
    public static let access: AccessRequirement = .anyone
    public static let contract = MethodContract(
        summary:
            "Revokes entries (who may: as acl.get). Each on its own, as Kii: an absent entry fails with ACL_NOT_FOUND, a fixed default (the scope owner's or the creator's) with ACL_ENTRY_FIXED; atomic and ensure as for acl.grant.",
        tags: ["acl"],
        params: changeParams,
        result: "change",
        changeResultSchema,
        errors: aclErrors + [ErrorReason.aclNotFound, ErrorReason.aclEntryFixed],
        writes: true,
        example: .init(
            params: [
                "scope": "app", "bucket": "people",
                "entries": [["action": "QUERY_OBJECTS_IN_BUCKET", "subject": "UserID:ANONYMOUS_USER"]],
            ],
            result: ["succeeded": [["action": "QUERY_OBJECTS_IN_BUCKET", "subject": "UserID:ANONYMOUS_USER"]], "failed": []]
        )
    )
}
