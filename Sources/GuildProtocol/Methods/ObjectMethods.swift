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
    }

    /// `object.patch`: sets the top-level fields of `body`, keeping the others (Kii's partial update).
    public enum Patch: RPCMethod {
        public typealias Params = WriteParams
        public typealias Result = JSONValue
        public static let name = "object.patch"
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
