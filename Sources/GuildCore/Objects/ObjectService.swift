import Foundation
import GuildJSON

/// Objects in buckets of the app, group, user and thing scopes, with Kii's ACLs on three levels and change
/// events (see protocol/objects.md).
///
/// One rule for reads the caller may not make: they answer exactly as if the object (or bucket) did not
/// exist (`OBJECT_NOT_FOUND`, `BUCKET_NOT_FOUND`), so existence does not leak; a caller who may see a thing
/// but not do what they asked gets `PERMISSION_DENIED`. Concerns are in extensions: `+Buckets`, `+Query`,
/// `+ACL` and `+Deletion`.
public struct ObjectService: Sendable {
    /// Where objects live.
    public var store: any Store
    /// The current time in ms since the Unix epoch.
    public var now: @Sendable () -> Int64
    /// Seals query paging keys.
    public var pageKeys: PageKeys = .process
    /// The bytes each owner may store: a create or update that grows its object's owner past it is refused.
    public var storageQuota: StorageQuota = .standard

    /// The largest object body, in characters of its JSON text (Kii's limit).
    public static let maximumBodyCharacters = 65_534
    /// The deepest nesting of a body's arrays and objects.
    public static let maximumBodyDepth = 32
    /// Reserved bucket names (Kii).
    public static let reservedBucketNames: Set<String> = ["users", "devices", "installations", "internal", "things"]

    /// Creates the service.
    public init(
        store: any Store,
        storageQuota: StorageQuota = .standard,
        now: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970 * 1000) }
    ) {
        self.store = store
        self.storageQuota = storageQuota
        self.now = now
    }

    // MARK: - Objects

    /// Creates an object (`CREATE_OBJECTS_IN_BUCKET`; in a bucket that does not exist yet,
    /// `CREATE_NEW_BUCKET` on the scope, which creates the bucket with the caller as its creator).
    public func create(
        caller: Caller,
        scope: ObjectScope,
        bucket name: String,
        body: JSONValue,
        objectID: String?
    ) async throws
        -> StoredObject
    {
        try Self.checkBucketName(name)
        let fields = try Self.fields(of: body)
        if let objectID { try Self.checkObjectID(objectID) }
        let now = self.now()
        return try await self.store.write { tx in
            let access = ObjectAccess(tx: tx, caller: caller)
            try Self.requireScope(access, scope)
            let bucket: Bucket
            if let existing = try tx.objects.bucket(scope: scope, name: name) {
                guard try access.allows(.createObjectsInBucket, scope: scope, bucket: existing) else {
                    throw Self.denied("create objects in bucket \(name)", caller)
                }
                bucket = existing
            } else {
                guard try access.allows(.createNewBucket, scope: scope) else {
                    throw Self.denied("create bucket \(name) in \(scope)", caller)
                }
                bucket = try Self.createBucket(tx, scope: scope, name: name, creator: access.userID, now: now)
            }
            let id = objectID ?? RandomID.timeOrderedUUID(now: now)
            if try tx.objects.object(in: bucket, id: id) != nil {
                throw GuildError(.objectAlreadyExists, "an object with id \(id) exists in \(name)", field: "objectID")
            }
            let new = StoredObject(rowID: 0, objectID: id, fields: fields, version: 1, created: now, modified: now, owner: access.userID)
            let object = try self.storageQuota.charging(StorageOwner.of(new, in: scope), tx) { try tx.objects.insertObject(new, in: bucket) }
            try tx.append(
                ObjectEvent(
                    kind: .objectCreated,
                    scope: scope,
                    bucket: name,
                    objectID: id,
                    object: object.view,
                    actor: access.userID,
                    time: now,
                    readers: try access.objectReaders(object, in: bucket)
                )
            )
            return object
        }
    }

    /// An object the caller may read.
    public func get(caller: Caller, scope: ObjectScope, bucket name: String, objectID: String) async throws -> StoredObject {
        try await self.store.read { tx in try Self.get(caller: caller, scope: scope, bucket: name, objectID: objectID, in: tx) }
    }

    /// An object the caller may read, in `tx` (a few indexed lookups: cheap enough for an immediate read).
    public static func get(
        caller: Caller,
        scope: ObjectScope,
        bucket name: String,
        objectID: String,
        in tx: any Transaction
    ) throws
        -> StoredObject
    {
        try Self.readable(ObjectAccess(tx: tx, caller: caller), scope: scope, bucket: name, objectID: objectID).object
    }

    /// How a write changes an object's fields.
    public enum Change: Sendable {
        /// The body becomes these fields (fields not sent are gone).
        case replace(JSONValue)
        /// These top-level fields are set; the others stay (Kii's partial update: a field cannot be removed).
        case patch(JSONValue)
    }

    /// Replaces or patches an object (`WRITE_EXISTING_OBJECT`); with `ifVersion`, only when that is its
    /// version (else `OBJECT_VERSION_IS_STALE`, nothing written).
    public func update(
        caller: Caller,
        scope: ObjectScope,
        bucket name: String,
        objectID: String,
        change: Change,
        ifVersion: Int64?
    ) async throws -> StoredObject {
        let given: [String: JSONValue]
        switch change {
        case .replace(let body), .patch(let body): given = try Self.fields(of: body)
        }
        let now = self.now()
        return try await self.store.write { tx in
            let access = ObjectAccess(tx: tx, caller: caller)
            let (bucket, current) = try Self.writable(access, scope: scope, bucket: name, objectID: objectID, ifVersion: ifVersion)
            var object = current
            switch change {
            case .replace: object.fields = given
            case .patch: object.fields.merge(given) { _, new in new }
            }
            try Self.checkSize(object.fields)
            object.version += 1
            object.modified = max(now, object.modified)
            try self.storageQuota.charging(StorageOwner.of(object, in: scope), tx) { try tx.objects.updateObject(object, in: bucket) }
            try tx.append(
                ObjectEvent(
                    kind: .objectUpdated,
                    scope: scope,
                    bucket: name,
                    objectID: objectID,
                    object: object.view,
                    actor: access.userID,
                    time: now,
                    readers: try access.objectReaders(object, in: bucket)
                )
            )
            return object
        }
    }

    /// Deletes an object (`WRITE_EXISTING_OBJECT`; `ifVersion` as for updates).
    public func delete(caller: Caller, scope: ObjectScope, bucket name: String, objectID: String, ifVersion: Int64?) async throws {
        let now = self.now()
        try await self.store.write { tx in
            let access = ObjectAccess(tx: tx, caller: caller)
            let (bucket, object) = try Self.writable(access, scope: scope, bucket: name, objectID: objectID, ifVersion: ifVersion)
            let readers = try access.objectReaders(object, in: bucket)
            try tx.objects.deleteObject(object, in: bucket)
            try tx.append(
                ObjectEvent(kind: .objectDeleted, scope: scope, bucket: name, objectID: objectID, actor: access.userID, time: now, readers: readers)
            )
        }
    }

    // MARK: - Checks shared by the operations

    /// The bucket and object a caller may read, or the not-found error they would get if neither existed.
    static func readable(
        _ access: ObjectAccess,
        scope: ObjectScope,
        bucket name: String,
        objectID: String
    ) throws
        -> (bucket: Bucket, object: StoredObject)
    {
        try Self.requireScope(access, scope)
        guard let bucket = try access.tx.objects.bucket(scope: scope, name: name),
            let object = try access.tx.objects.object(in: bucket, id: objectID),
            try access.reads(object, in: bucket)
        else {
            throw GuildError(.objectNotFound, "no object \(objectID) in bucket \(name) of \(scope)", field: "objectID")
        }
        return (bucket, object)
    }

    /// The bucket and object a caller may write, at `ifVersion` when given. Writing needs
    /// `WRITE_EXISTING_OBJECT` only; a caller who may neither write nor read the object gets the not-found
    /// answer, one who may read it but not write `PERMISSION_DENIED`.
    static func writable(
        _ access: ObjectAccess,
        scope: ObjectScope,
        bucket name: String,
        objectID: String,
        ifVersion: Int64?
    ) throws
        -> (bucket: Bucket, object: StoredObject)
    {
        try Self.requireScope(access, scope)
        let notFound = GuildError(.objectNotFound, "no object \(objectID) in bucket \(name) of \(scope)", field: "objectID")
        guard let bucket = try access.tx.objects.bucket(scope: scope, name: name), let object = try access.tx.objects.object(in: bucket, id: objectID)
        else {
            throw notFound
        }
        guard try access.allows(.writeExistingObject, scope: scope, bucket: bucket, object: object) else {
            throw try access.reads(object, in: bucket) ? Self.denied("change object \(objectID)", access.caller) : notFound
        }
        if let ifVersion, ifVersion != object.version {
            throw GuildError(
                .objectVersionIsStale,
                "object \(objectID) is at version \(object.version), not \(ifVersion)",
                field: "ifVersion"
            )
        }
        return (bucket, object)
    }

    /// A group's or user's scope must exist.
    static func requireScope(_ access: ObjectAccess, _ scope: ObjectScope) throws {
        switch scope {
        case .app: return
        case .group(let id):
            guard try access.group(id) != nil else { throw GuildError(.groupNotFound, "no group with id \(id)", field: "scope") }
        case .user(let id):
            guard try access.tx.groups.userExists(id) else { throw GuildError(.userNotFound, "no user with id \(id)", field: "scope") }
        case .thing(let id):
            guard try access.tx.things.thing(id: id) != nil else { throw GuildError(.thingNotFound, "no thing with id \(id)", field: "scope") }
        }
    }

    /// Creates a bucket with its default ACL entries.
    static func createBucket(_ tx: any Transaction, scope: ObjectScope, name: String, creator: String?, now: Int64) throws -> Bucket {
        let bucket = try tx.objects.insertBucket(scope: scope, name: name, creator: creator, now: now)
        for entry in ACLDefaults.bucket(scope, creator: creator) {
            _ = try tx.objects.insertACLEntry(entry, scope: scope, bucket: bucket.rowID, objectID: "")
        }
        return bucket
    }

    static func denied(_ what: String, _ caller: Caller) -> GuildError {
        if caller.principalID == nil && !caller.isAdmin {
            return GuildError(.unauthorized, "anonymous callers may not \(what): log in first")
        }
        return GuildError(.permissionDenied, "the caller may not \(what)")
    }

    // MARK: - Input rules

    /// A body's fields: it must be a JSON object within the size and depth limits; fields starting with `_`
    /// are Guild's and are dropped.
    static func fields(of body: JSONValue) throws(GuildError) -> [String: JSONValue] {
        guard case .object(var fields) = body else { throw .invalidInput("an object's body is a JSON object", field: "body") }
        for key in fields.keys where key.hasPrefix("_") { fields[key] = nil }
        guard Self.depth(of: body) <= Self.maximumBodyDepth else {
            throw .invalidInput("a body nests arrays and objects at most \(Self.maximumBodyDepth) deep", field: "body")
        }
        try Self.checkSize(fields)
        return fields
    }

    static func checkSize(_ fields: [String: JSONValue]) throws(GuildError) {
        var bytes: [UInt8] = []
        JSONValue.object(fields).writeJSON(to: &bytes)
        let characters = String(decoding: bytes, as: UTF8.self).unicodeScalars.count
        guard characters <= Self.maximumBodyCharacters else {
            throw GuildError(
                .objectTooLarge,
                "an object's JSON is at most \(Self.maximumBodyCharacters) characters; this one has \(characters)",
                field: "body"
            )
        }
    }

    private static func depth(of value: JSONValue) -> Int {
        switch value {
        case .array(let items): 1 + (items.lazy.map(Self.depth).max() ?? 0)
        case .object(let members): 1 + (members.values.lazy.map(Self.depth).max() ?? 0)
        default: 0
        }
    }

    /// Kii's bucket name rule: 2-64 of `[a-zA-Z0-9-_]`, not starting with `_`, not a reserved name.
    public static func checkBucketName(_ name: String) throws(GuildError) {
        let valid =
            (2...64).contains(name.utf8.count) && !name.hasPrefix("_")
            && name.utf8.allSatisfy { Self.isNameByte($0) }
        guard valid else {
            throw .invalidInput("a bucket name is 2-64 of a-z, A-Z, 0-9, - and _, not starting with _", field: "bucket")
        }
        guard !Self.reservedBucketNames.contains(name) else {
            throw .invalidInput("\(name) is a reserved bucket name", field: "bucket")
        }
    }

    /// Kii's object id rule: 2-100 of `[a-zA-Z0-9-_.]`.
    public static func checkObjectID(_ id: String) throws(GuildError) {
        guard (2...100).contains(id.utf8.count), id.utf8.allSatisfy({ Self.isNameByte($0) || $0 == UInt8(ascii: ".") }) else {
            throw .invalidInput("an object id is 2-100 of a-z, A-Z, 0-9, -, _ and .", field: "objectID")
        }
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "_"):
            true
        default: false
        }
    }
}
