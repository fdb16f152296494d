import GuildJSON

extension BucketMethods.List {
    public static let access: AccessRequirement = .anyone
    public static let contract = MethodContract(
        summary:
            "The scope's buckets the caller may see (any bucket-level right; all of them for the scope's administrators), by name, with their object counts.",
        tags: ["bucket"],
        params: [.objectScope],
        result: "buckets",
        JSONSchema.object(
            required: ["buckets"],
            [
                "buckets": JSONSchema.array(
                    of: JSONSchema.object(
                        required: ["bucket", "objectCount", "created"],
                        [
                            "bucket": JSONSchema.string, "objectCount": JSONSchema.integer, "created": JSONSchema.integer,
                            "creator": JSONSchema.string,
                        ]
                    )
                )
            ]
        ),
        errors: [ErrorReason.invalidInputData, ErrorReason.groupNotFound, ErrorReason.userNotFound, ErrorReason.thingNotFound],
        example: .init(
            params: ["scope": "app"],
            result: [
                "buckets": [
                    ["bucket": "people", "objectCount": 2, "created": 1_700_000_000_000, "creator": "4f1c2e0a9b8d4c7e8f6a5b4c3d2e1f01"]
                ]
            ]
        )
    )
}

extension BucketMethods.Delete {
    public static let access: AccessRequirement = .anyone
    public static let contract = MethodContract(
        summary:
            "Drops a bucket with all its objects and their ACLs (DROP_BUCKET_WITH_ALL_CONTENT). Those who could see it get bucketDeleted.",
        tags: ["bucket"],
        params: [.objectScope, .bucketName],
        result: "deleted",
        JSONSchema.boolean,
        errors: [
            ErrorReason.invalidInputData, ErrorReason.unauthorized, ErrorReason.permissionDenied, ErrorReason.groupNotFound,
            ErrorReason.userNotFound, ErrorReason.thingNotFound, ErrorReason.bucketNotFound,
        ],
        writes: true,
        example: .init(params: ["scope": "app", "bucket": "people"], result: true)
    )
}
