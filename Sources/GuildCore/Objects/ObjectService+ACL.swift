extension ObjectService {
    /// An entry as a caller names it, before it is checked.
    public struct EntryRequest: Hashable, Sendable {
        public var action: String
        public var subject: String

        public init(action: String, subject: String) {
            self.action = action
            self.subject = subject
        }
    }

    /// What a grant or revoke did: the entries applied (or already as asked, with `ensure`), and those that
    /// failed with their errors.
    public struct ACLChange: Sendable {
        public var succeeded: [ACLEntry] = []
        public var failed: [(entry: ACLEntry, error: GuildError)] = []
    }

    /// The ACL entries in force on a target, defaults included (who may: the scope's administrators, and for
    /// an object its creator).
    public func acl(caller: Caller, target: ACLTarget) async throws -> [ACLEntry] {
        try await self.store.read { tx in
            let access = ObjectAccess(tx: tx, caller: caller)
            let (bucket, object) = try Self.aclTarget(access, target, creating: false)
            let entries = try access.entries(nil, scope: target.scope, bucket: bucket, object: object)
            let order = Dictionary(uniqueKeysWithValues: ACLAction.allCases.enumerated().map { ($1, $0) })
            return entries.sorted {
                (order[$0.action]!, $0.subject.description) < (order[$1.action]!, $1.subject.description)
            }
        }
    }

    /// Grants (`revoke: false`) or revokes entries on a target. By default each entry is applied on its own,
    /// as Kii does: a duplicate grant fails with `ACL_ALREADY_EXISTS`, revoking an absent entry with
    /// `ACL_NOT_FOUND`, revoking a fixed one with `ACL_ENTRY_FIXED`, and the others still apply. `atomic`
    /// applies all or none (the first failure is the call's error); `ensure` counts an entry already as asked
    /// as succeeded. Granting on a bucket that does not exist creates it.
    public func changeACL(
        caller: Caller,
        target: ACLTarget,
        entries requests: [EntryRequest],
        revoke: Bool,
        atomic: Bool,
        ensure: Bool
    ) async throws -> ACLChange {
        guard !requests.isEmpty else { throw GuildError.invalidInput("name at least one entry", field: "entries") }
        var parsed: [ACLEntry] = []
        for (index, request) in requests.enumerated() {
            let action = try ACLAction(wire: request.action, level: target.level, field: "entries[\(index)].action")
            let subject = try ACLSubject(wire: request.subject, field: "entries[\(index)].subject")
            parsed.append(ACLEntry(action, subject))
        }
        let entries = parsed
        let now = self.now()
        return try await self.store.write { tx in
            let access = ObjectAccess(tx: tx, caller: caller)
            let (bucket, found) = try Self.aclTarget(access, target, creating: !revoke)
            let bucketRow = bucket?.rowID ?? 0
            let objectID = found?.objectID ?? ""
            if bucket == nil, try tx.objects.aclEntries(scope: target.scope, bucket: 0, objectID: "", action: nil) == nil {
                // The scope's ACL is written from now on: its defaults become entries.
                try tx.objects.markScopeACLWritten(target.scope)
                for entry in ACLDefaults.scope(target.scope) {
                    _ = try tx.objects.insertACLEntry(entry, scope: target.scope, bucket: 0, objectID: "")
                }
            }
            var object = found
            if let unwritten = object, !unwritten.aclWritten, let bucket {
                // The object's ACL is written from now on: its defaults become entries.
                try tx.objects.markObjectACLWritten(unwritten, in: bucket)
                for entry in ACLDefaults.object(target.scope, creator: unwritten.owner) {
                    _ = try tx.objects.insertACLEntry(entry, scope: target.scope, bucket: bucket.rowID, objectID: unwritten.objectID)
                }
                object?.aclWritten = true
            }
            let readersBefore = try Self.targetReaders(access, target.scope, bucket, object)
            var change = ACLChange()
            for entry in entries {
                let stored = try access.entries(entry.action, scope: target.scope, bucket: bucket, object: object)
                let present = stored.first { $0.subject == entry.subject }
                let failure: GuildError?
                if revoke {
                    if let present, present.fixed {
                        failure = GuildError(.aclEntryFixed, "\(entry.action.rawValue) for \(entry.subject) is a fixed default entry")
                    } else if present == nil {
                        failure = ensure ? nil : GuildError(.aclNotFound, "no entry \(entry.action.rawValue) for \(entry.subject)")
                    } else {
                        _ = try tx.objects.deleteACLEntry(entry, scope: target.scope, bucket: bucketRow, objectID: objectID)
                        failure = nil
                    }
                } else if present != nil {
                    failure = ensure ? nil : GuildError(.aclAlreadyExists, "\(entry.action.rawValue) for \(entry.subject) is already granted")
                } else if let missing = try Self.missingSubject(tx, entry.subject) {
                    failure = missing
                } else {
                    _ = try tx.objects.insertACLEntry(entry, scope: target.scope, bucket: bucketRow, objectID: objectID)
                    failure = nil
                }
                if let failure {
                    if atomic {
                        var error = failure
                        error.message = "nothing was applied (atomic): " + failure.message
                        error.field = "entries"
                        throw error
                    }
                    change.failed.append((entry, failure))
                } else {
                    change.succeeded.append(entry)
                }
            }
            let applied = change.succeeded
            if !applied.isEmpty {
                let readers = readersBefore.union(try Self.targetReaders(access, target.scope, bucket, object))
                var event = ObjectEvent(
                    kind: .aclChanged,
                    scope: target.scope,
                    bucket: bucket?.name,
                    objectID: object?.objectID,
                    actor: access.userID,
                    time: now,
                    readers: readers
                )
                if revoke { event.revoked = applied } else { event.granted = applied }
                try tx.append(event)
            }
            return change
        }
    }

    /// The bucket and object of an ACL target the caller may read and change the ACL of. A bucket that does
    /// not exist is created when `creating` (Kii: setting an entry on a bucket creates it).
    static func aclTarget(_ access: ObjectAccess, _ target: ACLTarget, creating: Bool) throws -> (Bucket?, StoredObject?) {
        try Self.requireScope(access, target.scope)
        guard let name = target.bucket else {
            guard try access.changesACL(scope: target.scope, object: nil) else {
                throw Self.denied("read or change the ACL of \(target.scope)", access.caller)
            }
            return (nil, nil)
        }
        try Self.checkBucketName(name)
        guard let objectID = target.objectID else {
            var bucket = try access.tx.objects.bucket(scope: target.scope, name: name)
            if bucket == nil, creating, try access.changesACL(scope: target.scope, object: nil) {
                bucket = try Self.createBucket(access.tx, scope: target.scope, name: name, creator: access.userID, now: 0)
            }
            guard let bucket, try access.seesBucket(bucket) else {
                throw GuildError(.bucketNotFound, "no bucket \(name) in \(target.scope)", field: "bucket")
            }
            guard try access.changesACL(scope: target.scope, object: nil) else {
                throw Self.denied("read or change the ACL of bucket \(name)", access.caller)
            }
            return (bucket, nil)
        }
        let (bucket, object) = try Self.readable(access, scope: target.scope, bucket: name, objectID: objectID)
        guard try access.changesACL(scope: target.scope, object: object) else {
            throw Self.denied("read or change the ACL of object \(objectID)", access.caller)
        }
        return (bucket, object)
    }

    /// Who can see the target: the scope's administrators for a scope, a bucket's or an object's readers.
    static func targetReaders(
        _ access: ObjectAccess,
        _ scope: ObjectScope,
        _ bucket: Bucket?,
        _ object: StoredObject?
    ) throws
        -> ObjectReaders
    {
        guard let bucket else { return try access.readers([], scope: scope) }
        guard let object else { return try access.bucketReaders(bucket) }
        return try access.objectReaders(object, in: bucket)
    }

    /// The error for an entry naming a user, group or thing that does not exist.
    static func missingSubject(_ tx: any Transaction, _ subject: ACLSubject) throws -> GuildError? {
        switch subject {
        case .user(let id): try tx.groups.userExists(id) ? nil : GuildError(.userNotFound, "no user with id \(id)")
        case .group(let id): try tx.groups.group(id) != nil ? nil : GuildError(.groupNotFound, "no group with id \(id)")
        case .thing(let id): try tx.things.thing(id: id) != nil ? nil : GuildError(.thingNotFound, "no thing with id \(id)")
        case .anyAuthenticated, .anonymous: nil
        }
    }
}
