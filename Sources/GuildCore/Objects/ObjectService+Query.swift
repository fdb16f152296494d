extension ObjectService {
    /// A query's page: at most `limit` objects, and the key of the next page when there may be one (a page
    /// may be short, even empty, and still have a next page, as in Kii).
    public struct QueryPage: Sendable {
        public var objects: [StoredObject]
        public var nextPaginationKey: String?
    }

    /// The page size when none is asked for.
    public static let defaultQueryLimit = 100
    /// The largest page.
    public static let maximumQueryLimit = 500
    /// The most objects one page reads before it returns what it found (so a selective clause on a big bucket
    /// costs bounded time per call).
    public static let queryScanBudget = 5_000

    /// Objects of a bucket that match `clause` (`QUERY_OBJECTS_IN_BUCKET`): all of them with
    /// `READ_OBJECTS_IN_BUCKET`, otherwise only those the caller may read. In creation order, or by `orderBy`
    /// (ascending unless `descending`; objects without the field last). Pages continue from
    /// `paginationKey`, stable under concurrent writes: no object twice, none that existed throughout skipped.
    /// Keys are sealed for the caller and this query (``PageKeys``): they reveal nothing of the objects scanned.
    public func query(
        caller: Caller,
        scope: ObjectScope,
        bucket name: String,
        clause: ObjectClause,
        orderBy: FieldPath?,
        descending: Bool,
        limit: Int?,
        paginationKey: String?
    ) async throws -> QueryPage {
        try Self.checkBucketName(name)
        let size = max(1, min(limit ?? Self.defaultQueryLimit, Self.maximumQueryLimit))
        let binding = PageBinding(
            "object.query",
            caller: caller,
            ["\(scope)", name, String(reflecting: clause), orderBy?.text ?? "", descending ? "descending" : "ascending"]
        )
        let start = try paginationKey.map { key throws(GuildError) in
            try ObjectCursor(bytes: self.pageKeys.open(key, for: binding))
        }
        let pageKeys = self.pageKeys
        let walk: ObjectWalk =
            if let orderBy { .ordered(orderBy, descending: descending) } else if let required = clause.requiredValues {
                .holding(required.path, required.values)
            } else { .all }
        return try await self.store.read { tx in
            let access = ObjectAccess(tx: tx, caller: caller)
            let bucket = try Self.visibleBucket(access, scope: scope, name: name)
            guard try access.allows(.queryObjectsInBucket, scope: scope, bucket: bucket) else {
                throw Self.denied("query bucket \(name)", caller)
            }
            let readsAll = try access.allows(.readObjectsInBucket, scope: scope, bucket: bucket)
            var found: [StoredObject] = []
            var cursor = start
            var examined = 0
            while true {
                let batch = try tx.objects.objects(in: bucket, walk: walk, after: cursor, limit: min(256, size * 2))
                for (object, next) in batch {
                    examined += 1
                    cursor = next
                    if clause.matches(object.view),
                        try readsAll || access.allows(.readExistingObject, scope: scope, bucket: bucket, object: object)
                    {
                        found.append(object)
                        if found.count == size {
                            return QueryPage(objects: found, nextPaginationKey: pageKeys.seal(next.bytes, for: binding))
                        }
                    }
                }
                if batch.count < min(256, size * 2) { return QueryPage(objects: found, nextPaginationKey: nil) }
                if examined >= Self.queryScanBudget {
                    return QueryPage(objects: found, nextPaginationKey: cursor.map { pageKeys.seal($0.bytes, for: binding) })
                }
            }
        }
    }
}
