import GuildJSON

/// `acl.*`: Kii's access control lists on a scope, a bucket or an object.
public enum ACLMethods: Sendable {
    /// What an ACL is on: `{scope}`, `{scope, bucket}` or `{scope, bucket, objectID}`.
    public struct Target: Codable, Hashable, Sendable {
        public var scope: String
        public var bucket: String?
        public var objectID: String?
        public init(scope: String, bucket: String? = nil, objectID: String? = nil) {
            self.scope = scope
            self.bucket = bucket
            self.objectID = objectID
        }
    }

    /// An entry: an action (`READ_EXISTING_OBJECT`, ...) and a subject in Kii's string form (`UserID:ID`,
    /// `GroupID:ID`, `ThingID:ID`, `UserID:ANY_AUTHENTICATED_USER`, `UserID:ANONYMOUS_USER`).
    public struct Entry: Codable, Hashable, Sendable {
        public var action: String
        public var subject: String
        /// In `acl.get`: a default entry of the scope's owner or the creator, which cannot be revoked.
        public var fixed: Bool?
        public init(action: String, subject: String, fixed: Bool? = nil) {
            self.action = action
            self.subject = subject
            self.fixed = fixed
        }
    }

    /// `acl.get`: the entries in force on a target, defaults included.
    public enum Get: RPCMethod {
        public typealias Params = Target
        public struct Result: Codable, Hashable, Sendable {
            public var entries: [Entry]
            public init(entries: [Entry]) { self.entries = entries }
        }
        public static let name = "acl.get"

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

    /// The params of `acl.grant` and `acl.revoke`.
    public struct ChangeParams: Codable, Hashable, Sendable {
        public var scope: String
        public var bucket: String?
        public var objectID: String?
        public var entries: [Entry]
        /// All entries or none, in one transaction.
        public var atomic: Bool?
        /// Entries already as asked count as succeeded (an idempotent grant or revoke).
        public var ensure: Bool?
        public init(
            scope: String,
            bucket: String? = nil,
            objectID: String? = nil,
            entries: [Entry],
            atomic: Bool? = nil,
            ensure: Bool? = nil
        ) {
            self.scope = scope
            self.bucket = bucket
            self.objectID = objectID
            self.entries = entries
            self.atomic = atomic
            self.ensure = ensure
        }
    }

    /// An entry that was not applied, and why.
    public struct Failure: Codable, Hashable, Sendable {
        public var action: String
        public var subject: String
        public var code: Int
        public var reason: String
        public var message: String
        public init(action: String, subject: String, code: Int, reason: String, message: String) {
            self.action = action
            self.subject = subject
            self.code = code
            self.reason = reason
            self.message = message
        }
    }

    /// What `acl.grant` and `acl.revoke` did.
    public struct ChangeResult: Codable, Hashable, Sendable {
        public var succeeded: [Entry]
        public var failed: [Failure]
        public init(succeeded: [Entry], failed: [Failure]) {
            self.succeeded = succeeded
            self.failed = failed
        }
    }

    /// `acl.grant`: adds entries, each on its own (Kii), or all or none (`atomic`).
    public enum Grant: RPCMethod {
        public typealias Params = ChangeParams
        public typealias Result = ChangeResult
        public static let name = "acl.grant"
        public static var itemLimits: [String: Int] { ["entries": 100] }

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

    /// `acl.revoke`: removes entries, each on its own, or all or none (`atomic`).
    public enum Revoke: RPCMethod {
        public typealias Params = ChangeParams
        public typealias Result = ChangeResult
        public static let name = "acl.revoke"
        public static var itemLimits: [String: Int] { ["entries": 100] }

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
}

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
