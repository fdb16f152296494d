/// One ACL entry in force on a target: an action allowed to a subject, and whether it is fixed (a default
/// right of the scope's owner or the target's creator, which no one may revoke).
public struct ACLEntry: Hashable, Sendable {
    public var action: ACLAction
    public var subject: ACLSubject
    public var fixed: Bool

    /// Creates an entry.
    public init(_ action: ACLAction, _ subject: ACLSubject, fixed: Bool = false) {
        self.action = action
        self.subject = subject
        self.fixed = fixed
    }
}

/// What an ACL is set on: a scope, a bucket in it, or an object in a bucket.
public struct ACLTarget: Hashable, Sendable {
    public var scope: ObjectScope
    public var bucket: String?
    public var objectID: String?

    /// Creates a target; an object needs a bucket.
    public init(scope: ObjectScope, bucket: String? = nil, objectID: String? = nil) {
        self.scope = scope
        self.bucket = bucket
        self.objectID = bucket == nil ? nil : objectID
    }

    /// The level of the target.
    public var level: ACLAction.Level {
        if self.objectID != nil { return .object }
        return self.bucket == nil ? .scope : .bucket
    }
}
