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
    }

    /// `acl.revoke`: removes entries, each on its own, or all or none (`atomic`).
    public enum Revoke: RPCMethod {
        public typealias Params = ChangeParams
        public typealias Result = ChangeResult
        public static let name = "acl.revoke"
        public static var itemLimits: [String: Int] { ["entries": 100] }
    }
}
