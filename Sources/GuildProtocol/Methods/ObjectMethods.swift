import GuildJSON

/// `object.*`: JSON objects in buckets of the app, group and user scopes (Kii's objects), with optimistic
/// locking and queries. An object comes back as its fields plus Guild's `_id`, `_version` (a string, as in
/// Kii), `_created`, `_modified` (ms) and `_owner`; fields a client sends starting with `_` are not stored.
public enum ObjectMethods: Sendable {
    /// `object.create`: stores a new object; a bucket that does not exist is created (with the caller as its
    /// creator) when the scope allows it.
    public enum Create: RPCMethod {
        public struct Params: Codable, Hashable, Sendable {
            /// `app`, `group:ID` or `user:ID`.
            public var scope: String
            public var bucket: String
            public var body: JSONValue
            /// The object's id (Kii's rule); generated when absent.
            public var objectID: String?
            public init(scope: String, bucket: String, body: JSONValue, objectID: String? = nil) {
                self.scope = scope
                self.bucket = bucket
                self.body = body
                self.objectID = objectID
            }
        }
        public struct Result: Codable, Hashable, Sendable {
            public var objectID: String
            /// `"1"`.
            public var version: String
            /// ms since the Unix epoch.
            public var created: Int64
            public init(objectID: String, version: String, created: Int64) {
                self.objectID = objectID
                self.version = version
                self.created = created
            }
        }
        public static let name = "object.create"

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

    /// Names an object.
    public struct ObjectRef: Codable, Hashable, Sendable {
        public var scope: String
        public var bucket: String
        public var objectID: String
        public init(scope: String, bucket: String, objectID: String) {
            self.scope = scope
            self.bucket = bucket
            self.objectID = objectID
        }
    }

    /// `object.get`: an object the caller may read (else `OBJECT_NOT_FOUND`, as if it did not exist).
    public enum Get: RPCMethod {
        public typealias Params = ObjectRef
        /// The object with its reserved fields.
        public typealias Result = JSONValue
        public static let name = "object.get"

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

    /// The params of `object.replace` and `object.patch`.
    public struct WriteParams: Codable, Hashable, Sendable {
        public var scope: String
        public var bucket: String
        public var objectID: String
        public var body: JSONValue
        /// Write only if this is the object's `_version` (else `OBJECT_VERSION_IS_STALE`).
        public var ifVersion: ObjectVersion?
        public init(scope: String, bucket: String, objectID: String, body: JSONValue, ifVersion: ObjectVersion? = nil) {
            self.scope = scope
            self.bucket = bucket
            self.objectID = objectID
            self.body = body
            self.ifVersion = ifVersion
        }
    }

    /// `object.replace`: the object's fields become `body` (fields not sent are gone).
    public enum Replace: RPCMethod {
        public typealias Params = WriteParams
        public typealias Result = JSONValue
        public static let name = "object.replace"

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

    /// `object.patch`: sets the top-level fields of `body`, keeping the others (Kii's partial update).
    public enum Patch: RPCMethod {
        public typealias Params = WriteParams
        public typealias Result = JSONValue
        public static let name = "object.patch"

        public static let access: AccessRequirement = .anyone
        public static let contract = objectWriteContract(
            summary:
                "Sets the top-level fields of body and keeps the others (Kii's partial update: a field cannot be removed this way; WRITE_EXISTING_OBJECT). Returns the whole object. Readers get objectUpdated.",
            example: ["scope": "app", "bucket": "people", "objectID": "d8dc9f29-0fb9-48be-a80c-ec60fddedb54", "body": ["age": 31]]
        )
    }

    /// `object.delete`: deletes an object (and its ACL).
    public enum Delete: RPCMethod {
        public struct Params: Codable, Hashable, Sendable {
            public var scope: String
            public var bucket: String
            public var objectID: String
            public var ifVersion: ObjectVersion?
            public init(scope: String, bucket: String, objectID: String, ifVersion: ObjectVersion? = nil) {
                self.scope = scope
                self.bucket = bucket
                self.objectID = objectID
                self.ifVersion = ifVersion
            }
        }
        public typealias Result = Bool
        public static let name = "object.delete"

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

    /// `object.query`: a page of the bucket's objects that match a clause of Kii's query language.
    public enum Query: RPCMethod {
        public struct Params: Codable, Hashable, Sendable {
            public var scope: String
            public var bucket: String
            /// A clause (`{"type": "eq", "field": ..., "value": ...}`); absent: all.
            public var clause: JSONValue?
            /// A dotted field path to sort by.
            public var orderBy: String?
            public var descending: Bool?
            public var limit: Int?
            public var paginationKey: String?
            public init(
                scope: String,
                bucket: String,
                clause: JSONValue? = nil,
                orderBy: String? = nil,
                descending: Bool? = nil,
                limit: Int? = nil,
                paginationKey: String? = nil
            ) {
                self.scope = scope
                self.bucket = bucket
                self.clause = clause
                self.orderBy = orderBy
                self.descending = descending
                self.limit = limit
                self.paginationKey = paginationKey
            }
        }
        public struct Result: Codable, Hashable, Sendable {
            public var results: [JSONValue]
            /// Present while there may be more: pass it back with the same query.
            public var nextPaginationKey: String?
            public init(results: [JSONValue], nextPaginationKey: String?) {
                self.results = results
                self.nextPaginationKey = nextPaginationKey
            }
        }
        public static let name = "object.query"
        public static var isExpensive: Bool { true }

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
}

/// An object's `_version` as a client sends it back: Kii's string (`"3"`), or the number.
public struct ObjectVersion: Codable, Hashable, Sendable, ExpressibleByIntegerLiteral {
    public var value: Int64

    public init(_ value: Int64) { self.value = value }
    public init(integerLiteral value: Int64) { self.value = value }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Int64.self) {
            self.value = number
        } else if let text = try? container.decode(String.self), let number = Int64(text) {
            self.value = number
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "a version is a number or a string of digits")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(String(self.value))
    }
}

extension ObjectMethods.ObjectRef: JSONReadable {
    /// The fast path of `object.get`'s params (three strings); anything unusual goes through `JSONDecoder`.
    public init?(json value: JSONScanner.Value, in bytes: UnsafeRawBufferPointer) {
        guard value.kind == .object else { return nil }
        var scope: String?
        var bucket: String?
        var objectID: String?
        for member in JSONScanner(maximumDepth: .max).members(of: value, in: bytes) {
            switch member.key {
            case "scope": scope = member.value.string(in: bytes)
            case "bucket": bucket = member.value.string(in: bytes)
            case "objectID": objectID = member.value.string(in: bytes)
            default: continue
            }
        }
        guard let scope, let bucket, let objectID else { return nil }
        self.init(scope: scope, bucket: bucket, objectID: objectID)
    }
}

extension ObjectMethods.Create.Params: JSONReadable {
    /// The fast path of `object.create`'s params; anything unusual goes through `JSONDecoder`.
    public init?(json value: JSONScanner.Value, in bytes: UnsafeRawBufferPointer) {
        guard value.kind == .object else { return nil }
        var scope: String?
        var bucket: String?
        var body: JSONValue?
        var objectID: String?
        for member in JSONScanner(maximumDepth: .max).members(of: value, in: bytes) {
            switch member.key {
            case "scope": scope = member.value.string(in: bytes)
            case "bucket": bucket = member.value.string(in: bytes)
            case "body": body = JSONValue(exactly: member.value, in: bytes)
            case "objectID":
                guard member.value.kind != .null else { continue }
                guard let id = member.value.string(in: bytes) else { return nil }
                objectID = id
            default: continue
            }
        }
        guard let scope, let bucket, let body else { return nil }
        self.init(scope: scope, bucket: bucket, body: body, objectID: objectID)
    }
}

extension ObjectMethods.WriteParams: JSONReadable {
    /// The fast path of `object.replace` and `object.patch` params; anything unusual (such as `ifVersion`)
    /// goes through `JSONDecoder`.
    public init?(json value: JSONScanner.Value, in bytes: UnsafeRawBufferPointer) {
        guard value.kind == .object else { return nil }
        var scope: String?
        var bucket: String?
        var objectID: String?
        var body: JSONValue?
        for member in JSONScanner(maximumDepth: .max).members(of: value, in: bytes) {
            switch member.key {
            case "scope": scope = member.value.string(in: bytes)
            case "bucket": bucket = member.value.string(in: bytes)
            case "objectID": objectID = member.value.string(in: bytes)
            case "body": body = JSONValue(exactly: member.value, in: bytes)
            case "ifVersion": if member.value.kind != .null { return nil }
            default: continue
            }
        }
        guard let scope, let bucket, let objectID, let body else { return nil }
        self.init(scope: scope, bucket: bucket, objectID: objectID, body: body)
    }
}

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
