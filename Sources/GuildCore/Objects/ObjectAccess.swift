/// The ACL check of one caller in one transaction: who the caller is, and what the entries in force allow
/// them. Group subjects are resolved against the group's membership in the same transaction, never a cache,
/// so a membership change takes effect on the very next check.
final class ObjectAccess {
    let tx: any Transaction
    let caller: Caller
    /// Groups read in this transaction (several checks of one call ask for the same group).
    private var groups: [String: GroupOwnership?] = [:]

    init(tx: any Transaction, caller: Caller) {
        self.tx = tx
        self.caller = caller
    }

    /// Whether group `id` exists, and its owner (nil: no such group), read once per access.
    func group(_ id: String) throws -> GroupOwnership? {
        if let group = self.groups[id] { return group }
        let group = try self.tx.groups.groupOwnership(id)
        self.groups[id] = group
        return group
    }

    /// The owner of group `id` (nil: no such group, or ownerless).
    func groupOwner(_ id: String) throws -> String? {
        try self.group(id)?.ownerID
    }

    /// The caller's user, nil for an admin without a session or an anonymous caller.
    var userID: String? { self.caller.session?.user.id }

    /// Whether the caller is one of `subject`.
    func holds(_ subject: ACLSubject) throws -> Bool {
        switch subject {
        case .anonymous: return true
        case .anyAuthenticated: return self.caller.principalID != nil
        case .user(let id): return self.userID == id
        case .group(let id):
            guard let userID = self.userID else { return false }
            return try self.tx.groups.membership(groupID: id, userID: userID) != nil
        case .thing(let id): return self.caller.thingID == id
        }
    }

    /// Whether the caller administers the scope: an app admin anywhere, the group's owner in a group's scope,
    /// the user in their own, the thing and its owners in the thing's. Administrators may do anything in the
    /// scope, ACLs included.
    func administers(_ scope: ObjectScope) throws -> Bool {
        if self.caller.isAdmin { return true }
        if case .thing(let id) = scope {
            return try self.caller.thingID == id || ThingService.callerOwns(self.caller, id, self.tx)
        }
        guard let userID = self.userID else { return false }
        switch scope {
        case .app, .thing: return false
        case .user(let id): return id == userID
        case .group(let id): return try self.groupOwner(id) == userID
        }
    }

    /// The entries in force for `action` on a target (`bucket` nil for the scope, `object` nil for the
    /// bucket): those stored, or the defaults of a scope or object whose ACL was never written (they are not
    /// stored until then, so creating an object writes no ACL rows).
    func entries(_ action: ACLAction?, scope: ObjectScope, bucket: Bucket?, object: StoredObject?) throws -> [ACLEntry] {
        let defaults: [ACLEntry]
        if let object, !object.aclWritten {
            defaults = ACLDefaults.object(scope, creator: object.owner)
        } else if let stored = try self.tx.objects.aclEntries(
            scope: scope,
            bucket: bucket?.rowID ?? 0,
            objectID: object?.objectID ?? "",
            action: action
        ) {
            return stored
        } else {
            defaults = ACLDefaults.scope(scope)
        }
        return action.map { action in defaults.filter { $0.action == action } } ?? defaults
    }

    /// Whether the caller may do `action` on a target.
    func allows(_ action: ACLAction, scope: ObjectScope, bucket: Bucket? = nil, object: StoredObject? = nil) throws -> Bool {
        if try self.administers(scope) { return true }
        for entry in try self.entries(action, scope: scope, bucket: bucket, object: object) where try self.holds(entry.subject) {
            return true
        }
        return false
    }

    /// Whether the caller may see the bucket at all: any of its bucket-level rights.
    func seesBucket(_ bucket: Bucket) throws -> Bool {
        if try self.administers(bucket.scope) { return true }
        for entry in try self.entries(nil, scope: bucket.scope, bucket: bucket, object: nil) where try self.holds(entry.subject) {
            return true
        }
        return false
    }

    /// Whether the caller may read an object: READ_OBJECTS_IN_BUCKET on its bucket, or READ_EXISTING_OBJECT on it.
    func reads(_ object: StoredObject, in bucket: Bucket) throws -> Bool {
        try self.allows(.readObjectsInBucket, scope: bucket.scope, bucket: bucket)
            || self.allows(.readExistingObject, scope: bucket.scope, bucket: bucket, object: object)
    }

    /// Whether the caller may read or change the ACL of a target: the scope's administrators, and for an
    /// object also its creator.
    func changesACL(scope: ObjectScope, object: StoredObject?) throws -> Bool {
        if try self.administers(scope) { return true }
        if let object, let owner = object.owner, owner == self.userID { return true }
        return false
    }

    /// Who may read through `actions` on the targets: the subjects of their entries and the scope's
    /// administrators (for events; an app admin sees everything anyway).
    func readers(_ targets: [(ACLAction, Bucket?, StoredObject?)], scope: ObjectScope) throws -> ObjectReaders {
        var users: Set<String> = []
        var groups: Set<String> = []
        var everyone = false
        switch scope {
        case .user(let id): users.insert(id)
        case .group(let id): if let owner = try self.groupOwner(id) { users.insert(owner) }
        case .thing(let id):
            users.insert(id)
            for owner in try self.tx.things.thingOwners(thingID: id) {
                switch owner {
                case .user(let user): users.insert(user)
                case .group(let group): groups.insert(group)
                }
            }
        case .app: break
        }
        for (action, bucket, object) in targets {
            for entry in try self.entries(action, scope: scope, bucket: bucket, object: object) {
                switch entry.subject {
                case .anonymous, .anyAuthenticated: everyone = true
                case .user(let id): users.insert(id)
                case .group(let id): groups.insert(id)
                case .thing(let id): users.insert(id)
                }
            }
        }
        return ObjectReaders(users: users.sorted(), groups: groups.sorted(), everyone: everyone)
    }

    /// Who may read an object now.
    func objectReaders(_ object: StoredObject, in bucket: Bucket) throws -> ObjectReaders {
        try self.readers([(.readObjectsInBucket, bucket, nil), (.readExistingObject, bucket, object)], scope: bucket.scope)
    }

    /// Who may see a bucket now (any bucket-level right).
    func bucketReaders(_ bucket: Bucket) throws -> ObjectReaders {
        try self.readers(ACLAction.actions(of: .bucket).map { ($0, bucket, nil) }, scope: bucket.scope)
    }
}
