/// The entries a target gets when it comes into being (Kii's defaults; see protocol/objects.md). Entries
/// naming the scope's owner or the target's creator are fixed; the app scope's entries for everyone are not,
/// so an app admin may narrow them.
enum ACLDefaults {
    /// A scope's entries before anyone changed its ACL.
    static func scope(_ scope: ObjectScope) -> [ACLEntry] {
        switch scope {
        case .app: [ACLEntry(.createNewBucket, .anyAuthenticated)]
        case .group(let id): [ACLEntry(.createNewBucket, .group(id), fixed: true)]
        case .user(let id): [ACLEntry(.createNewBucket, .user(id), fixed: true)]
        case .thing(let id): [ACLEntry(.createNewBucket, .thing(id), fixed: true)]
        }
    }

    /// A new bucket's entries; `creator` is the user who created it (nil: an admin or an anonymous caller).
    static func bucket(_ scope: ObjectScope, creator: String?) -> [ACLEntry] {
        switch scope {
        case .app:
            return [
                ACLEntry(.createObjectsInBucket, .anyAuthenticated),
                ACLEntry(.queryObjectsInBucket, .anyAuthenticated),
                ACLEntry(.queryObjectsInBucket, .anonymous),
                ACLEntry(.readObjectsInBucket, .anyAuthenticated),
                ACLEntry(.readObjectsInBucket, .anonymous),
                ACLEntry(.dropBucketWithAllContent, .anyAuthenticated),
            ]
        case .group, .user, .thing:
            let owner = scope.ownerSubject!
            var entries: [ACLEntry] = []
            for action in ACLAction.actions(of: .bucket) {
                // In a group, dropping is for the group's owner (implicitly) and the bucket's creator only.
                if action != .dropBucketWithAllContent || !(owner.isGroup) {
                    entries.append(ACLEntry(action, owner, fixed: true))
                }
                if let creator, ACLSubject.user(creator) != owner {
                    entries.append(ACLEntry(action, .user(creator), fixed: true))
                }
            }
            return entries
        }
    }

    /// A new object's entries; `creator` is the user who created it (nil: an admin or an anonymous caller).
    static func object(_ scope: ObjectScope, creator: String?) -> [ACLEntry] {
        var entries: [ACLEntry] = []
        if let owner = scope.ownerSubject {
            entries += ACLAction.actions(of: .object).map { ACLEntry($0, owner, fixed: true) }
        } else {
            entries += [
                ACLEntry(.readExistingObject, .anyAuthenticated),
                ACLEntry(.readExistingObject, .anonymous),
                ACLEntry(.writeExistingObject, .anyAuthenticated),
            ]
        }
        if let creator, ACLSubject.user(creator) != scope.ownerSubject {
            entries += ACLAction.actions(of: .object).map { ACLEntry($0, .user(creator), fixed: true) }
        }
        return entries
    }
}

extension ACLSubject {
    var isGroup: Bool {
        if case .group = self { return true }
        return false
    }
}
