/// The objects area's records and queries, on a ``Transaction``: buckets, objects with their field index, and
/// ACL entries.
public protocol ObjectRecords {
    /// A bucket by scope and name.
    func bucket(scope: ObjectScope, name: String) throws -> Bucket?
    /// Creates a bucket; its ACL entries are inserted by the caller.
    func insertBucket(scope: ObjectScope, name: String, creator: String?, now: Int64) throws -> Bucket
    /// A scope's buckets with their object counts, by name.
    func buckets(scope: ObjectScope) throws -> [(bucket: Bucket, count: Int)]
    /// Deletes a bucket with its objects and their ACL entries.
    func deleteBucket(_ bucket: Bucket) throws
    /// An object by id.
    func object(in bucket: Bucket, id: String) throws -> StoredObject?
    /// Stores a new object (`rowID` is assigned) and indexes its fields; returns it with its row id.
    func insertObject(_ object: StoredObject, in bucket: Bucket) throws -> StoredObject
    /// Replaces a stored object's fields, version and times, and re-indexes it.
    func updateObject(_ object: StoredObject, in bucket: Bucket) throws
    /// Records that an object's ACL is written from now on (its defaults are stored as entries).
    func markObjectACLWritten(_ object: StoredObject, in bucket: Bucket) throws
    /// Deletes an object with its ACL entries.
    func deleteObject(_ object: StoredObject, in bucket: Bucket) throws
    /// Up to `limit` objects of a walk after `cursor`, each with the cursor just past it.
    func objects(
        in bucket: Bucket,
        walk: ObjectWalk,
        after cursor: ObjectCursor?,
        limit: Int
    ) throws
        -> [(object: StoredObject, cursor: ObjectCursor)]

    /// The stored entries of `action` on a target (`bucket` 0 for a scope, `objectID` empty for a bucket);
    /// nil for a scope whose ACL was never written (its defaults apply).
    func aclEntries(scope: ObjectScope, bucket: Int64, objectID: String, action: ACLAction?) throws -> [ACLEntry]?
    /// Adds an entry; false when it was there.
    func insertACLEntry(_ entry: ACLEntry, scope: ObjectScope, bucket: Int64, objectID: String) throws -> Bool
    /// Removes an entry; false when it was not there.
    func deleteACLEntry(_ entry: ACLEntry, scope: ObjectScope, bucket: Int64, objectID: String) throws -> Bool
    /// Records that a scope's ACL is written from now on (its defaults are stored as entries).
    func markScopeACLWritten(_ scope: ObjectScope) throws
    /// Deletes every bucket, object and ACL entry of a scope.
    func deleteScope(_ scope: ObjectScope) throws
    /// Removes the ACL entries naming a subject (a deleted user or group).
    func deleteACLEntries(naming subject: ACLSubject) throws
    /// Checks the objects area's invariants; returns a description of each violation.
    func objectInvariantViolations() throws -> [String]
}
