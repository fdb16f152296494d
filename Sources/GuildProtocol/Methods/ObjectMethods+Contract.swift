import GuildJSON

extension MethodContract.Param {
    /// `scope`: `app`, `group:ID`, `user:ID` or `thing:ID`.
    static let objectScope = MethodContract.Param(
        "scope",
        JSONSchema.string,
        required: true,
        "app, group:ID, user:ID or thing:ID"
    )
    /// `bucket`: Kii's bucket name rule.
    static let bucketName = MethodContract.Param(
        "bucket",
        JSONSchema.string,
        required: true,
        "2-64 of [a-zA-Z0-9-_], not starting with _; not users, devices, installations, internal or things"
    )
    /// `objectID`.
    static let objectID = MethodContract.Param("objectID", JSONSchema.string, required: true)
    /// `ifVersion`.
    static let ifVersion = MethodContract.Param(
        "ifVersion",
        ["type": ["string", "integer"]],
        "Only if the object's _version is this (else OBJECT_VERSION_IS_STALE, nothing written)"
    )
}

extension ContractExamples {
    /// An object as the object methods return it.
    static let object: JSONValue = [
        "_id": "d8dc9f29-0fb9-48be-a80c-ec60fddedb54", "_version": "2", "_created": 1_700_000_000_000,
        "_modified": 1_700_000_060_000, "_owner": "4f1c2e0a9b8d4c7e8f6a5b4c3d2e1f01", "name": "Alice", "age": 31,
    ]
}

/// The errors every object method may answer with.
private let objectErrors = [
    ErrorReason.invalidInputData, ErrorReason.unauthorized, ErrorReason.permissionDenied, ErrorReason.groupNotFound,
    ErrorReason.userNotFound, ErrorReason.thingNotFound, ErrorReason.objectNotFound,
]

extension ObjectMethods.Create {
    public static let access: AccessRequirement = .anyone
    public static let contract = MethodContract(
        summary:
            "Stores a new object in a bucket (CREATE_OBJECTS_IN_BUCKET; a new bucket needs CREATE_NEW_BUCKET on the scope and gets the caller as its creator). Fields starting with _ are not stored. The object gets Kii's default ACL (protocol/objects.md) and readers of the bucket get objectCreated.",
        tags: ["object"],
        params: [
            .objectScope, .bucketName,
            .init("body", JSONSchema.object, required: true, "A JSON object of at most 65,534 characters, nested at most 32 deep"),
            .init("objectID", JSONSchema.string, "2-100 of [a-zA-Z0-9-_.]; generated (a UUID) when absent"),
        ],
        result: "created",
        JSONSchema.object(
            required: ["objectID", "version", "created"],
            ["objectID": JSONSchema.string, "version": JSONSchema.string, "created": JSONSchema.integer]
        ),
        errors: objectErrors + [ErrorReason.objectAlreadyExists, ErrorReason.objectTooLarge, ErrorReason.quotaExceeded],
        writes: true,
        example: .init(
            params: ["scope": "app", "bucket": "people", "body": ["name": "Alice", "age": 31]],
            result: ["objectID": "d8dc9f29-0fb9-48be-a80c-ec60fddedb54", "version": "1", "created": 1_700_000_000_000]
        )
    )
}

extension ObjectMethods.Get {
    public static let access: AccessRequirement = .anyone
    public static let contract = MethodContract(
        summary:
            "An object with its fields and _id, _version, _created, _modified, _owner (READ_OBJECTS_IN_BUCKET or READ_EXISTING_OBJECT; otherwise OBJECT_NOT_FOUND, as if it did not exist).",
        tags: ["object"],
        params: [.objectScope, .bucketName, .objectID],
        result: "object",
        JSONSchema.object,
        errors: objectErrors,
        example: .init(
            params: ["scope": "app", "bucket": "people", "objectID": "d8dc9f29-0fb9-48be-a80c-ec60fddedb54"],
            result: ContractExamples.object
        )
    )
}

extension ObjectMethods.Replace {
    public static let access: AccessRequirement = .anyone
    public static let contract = objectWriteContract(
        summary:
            "Replaces an object's fields with body; fields not sent are gone (WRITE_EXISTING_OBJECT). Returns the object with its new _version. Readers get objectUpdated.",
        example: [
            "scope": "app", "bucket": "people", "objectID": "d8dc9f29-0fb9-48be-a80c-ec60fddedb54",
            "body": ["name": "Alice", "age": 31], "ifVersion": "1",
        ]
    )
}

extension ObjectMethods.Patch {
    public static let access: AccessRequirement = .anyone
    public static let contract = objectWriteContract(
        summary:
            "Sets the top-level fields of body and keeps the others (Kii's partial update: a field cannot be removed this way; WRITE_EXISTING_OBJECT). Returns the whole object. Readers get objectUpdated.",
        example: ["scope": "app", "bucket": "people", "objectID": "d8dc9f29-0fb9-48be-a80c-ec60fddedb54", "body": ["age": 31]]
    )
}

/// The contract of `object.replace` and `object.patch`: they differ in what they do with `body`.
private func objectWriteContract(summary: String, example: KeyValuePairs<String, JSONValue>) -> MethodContract {
    MethodContract(
        summary: summary,
        tags: ["object"],
        params: [.objectScope, .bucketName, .objectID, .init("body", JSONSchema.object, required: true), .ifVersion],
        result: "object",
        JSONSchema.object,
        errors: objectErrors + [ErrorReason.objectVersionIsStale, ErrorReason.objectTooLarge, ErrorReason.quotaExceeded],
        writes: true,
        example: .init(params: example, result: ContractExamples.object)
    )
}

extension ObjectMethods.Delete {
    public static let access: AccessRequirement = .anyone
    public static let contract = MethodContract(
        summary: "Deletes an object and its ACL (WRITE_EXISTING_OBJECT). Readers get objectDeleted.",
        tags: ["object"],
        params: [.objectScope, .bucketName, .objectID, .ifVersion],
        result: "deleted",
        JSONSchema.boolean,
        errors: objectErrors + [ErrorReason.objectVersionIsStale],
        writes: true,
        example: .init(params: ["scope": "app", "bucket": "people", "objectID": "d8dc9f29-0fb9-48be-a80c-ec60fddedb54"], result: true)
    )
}

extension ObjectMethods.Query {
    public static let access: AccessRequirement = .anyone
    public static let contract = MethodContract(
        summary:
            "A page of the bucket's objects matching a clause of Kii's query language (QUERY_OBJECTS_IN_BUCKET; without READ_OBJECTS_IN_BUCKET only objects the caller may read). In creation order, or by orderBy (objects without the field last). A page holds at most limit objects and may be shorter, even empty, while nextPaginationKey is present; pass it back with the same query. Pages are stable under concurrent writes. See protocol/objects.md.",
        tags: ["object"],
        params: [
            .objectScope, .bucketName,
            .init(
                "clause",
                JSONSchema.object,
                "all, eq, prefix, range, in, not, and, or, hasField (Kii's forms; fields are dotted paths); absent: all"
            ),
            .init("orderBy", JSONSchema.string, "A dotted field path to sort by"),
            .init("descending", JSONSchema.boolean, "With orderBy: largest first (default false)"),
            .init("limit", JSONSchema.integer, "Objects per page: default 100, at most 500"),
            .init(
                "paginationKey",
                JSONSchema.string,
                "The previous page's nextPaginationKey, with the same query by the same caller; sealed, valid until the daemon restarts"
            ),
        ],
        result: "page",
        JSONSchema.object(
            required: ["results"],
            ["results": JSONSchema.array(of: JSONSchema.object), "nextPaginationKey": JSONSchema.string]
        ),
        errors: [
            ErrorReason.invalidInputData, ErrorReason.unauthorized, ErrorReason.permissionDenied, ErrorReason.groupNotFound,
            ErrorReason.userNotFound, ErrorReason.thingNotFound, ErrorReason.bucketNotFound, ErrorReason.queryNotSupported,
        ],
        example: .init(
            params: [
                "scope": "app", "bucket": "people", "clause": ["type": "eq", "field": "name", "value": "Alice"], "limit": 50,
            ],
            result: ["results": [ContractExamples.object]]
        )
    )
}

extension ObjectMethods {
    /// The objects area's methods (objects, buckets, ACLs), in the published contract. A new method of the
    /// area is added here.
    public static let all: [any RPCMethod.Type] = [
        ObjectMethods.Create.self,
        ObjectMethods.Get.self,
        ObjectMethods.Replace.self,
        ObjectMethods.Patch.self,
        ObjectMethods.Delete.self,
        ObjectMethods.Query.self,
        BucketMethods.List.self,
        BucketMethods.Delete.self,
        ACLMethods.Get.self,
        ACLMethods.Grant.self,
        ACLMethods.Revoke.self,
    ]
}
