import GuildJSON

/// `bucket.*`: the buckets of a scope.
public enum BucketMethods: Sendable {
    /// `bucket.list`: the scope's buckets the caller may see, with their object counts.
    public enum List: RPCMethod {
        public struct Params: Codable, Hashable, Sendable {
            public var scope: String
            public init(scope: String) { self.scope = scope }
        }
        public struct Result: Codable, Hashable, Sendable {
            public var buckets: [BucketInfo]
            public init(buckets: [BucketInfo]) { self.buckets = buckets }
        }
        public static let name = "bucket.list"

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

    /// A bucket as `bucket.list` shows it.
    public struct BucketInfo: Codable, Hashable, Sendable {
        public var bucket: String
        public var objectCount: Int
        public var created: Int64
        public var creator: String?
        public init(bucket: String, objectCount: Int, created: Int64, creator: String?) {
            self.bucket = bucket
            self.objectCount = objectCount
            self.created = created
            self.creator = creator
        }
    }

    /// `bucket.delete`: drops a bucket with all its objects (`DROP_BUCKET_WITH_ALL_CONTENT`).
    public enum Delete: RPCMethod {
        public struct Params: Codable, Hashable, Sendable {
            public var scope: String
            public var bucket: String
            public init(scope: String, bucket: String) {
                self.scope = scope
                self.bucket = bucket
            }
        }
        public typealias Result = Bool
        public static let name = "bucket.delete"

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
}
