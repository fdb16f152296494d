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
    }
}
