extension ObjectService {
    /// A bucket as `bucket.list` shows it.
    public struct BucketSummary: Hashable, Sendable {
        public var name: String
        public var objectCount: Int
        public var created: Int64
        public var creator: String?
    }

    /// The scope's buckets the caller may see (any bucket-level right; all of them for the scope's
    /// administrators), with their object counts.
    public func buckets(caller: Caller, scope: ObjectScope) async throws -> [BucketSummary] {
        try await self.store.read { tx in
            let access = ObjectAccess(tx: tx, caller: caller)
            try Self.requireScope(access, scope)
            return try tx.objects.buckets(scope: scope).filter { try access.seesBucket($0.bucket) }.map {
                BucketSummary(name: $0.bucket.name, objectCount: $0.count, created: $0.bucket.created, creator: $0.bucket.creator)
            }
        }
    }

    /// Drops a bucket with all its objects (`DROP_BUCKET_WITH_ALL_CONTENT`).
    public func deleteBucket(caller: Caller, scope: ObjectScope, bucket name: String) async throws {
        try Self.checkBucketName(name)
        let now = self.now()
        try await self.store.write { tx in
            let access = ObjectAccess(tx: tx, caller: caller)
            let bucket = try Self.visibleBucket(access, scope: scope, name: name)
            guard try access.allows(.dropBucketWithAllContent, scope: scope, bucket: bucket) else {
                throw Self.denied("drop bucket \(name)", caller)
            }
            try Self.drop(access, bucket, now: now)
        }
    }

    /// Deletes a bucket, telling who could see it.
    static func drop(_ access: ObjectAccess, _ bucket: Bucket, now: Int64) throws {
        let readers = try access.bucketReaders(bucket)
        try access.tx.objects.deleteBucket(bucket)
        try access.tx.append(
            ObjectEvent(kind: .bucketDeleted, scope: bucket.scope, bucket: bucket.name, actor: access.userID, time: now, readers: readers)
        )
    }

    /// A bucket the caller may see, or `BUCKET_NOT_FOUND` as if it did not exist.
    static func visibleBucket(_ access: ObjectAccess, scope: ObjectScope, name: String) throws -> Bucket {
        try Self.requireScope(access, scope)
        guard let bucket = try access.tx.objects.bucket(scope: scope, name: name), try access.seesBucket(bucket) else {
            throw GuildError(.bucketNotFound, "no bucket \(name) in \(scope)", field: "bucket")
        }
        return bucket
    }
}
