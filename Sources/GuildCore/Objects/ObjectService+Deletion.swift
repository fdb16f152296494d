extension ObjectService {
    /// Drops a deleted user's scope (every bucket and object) and the ACL entries naming them, in the
    /// deletion's transaction (a ``UserDeletionStep``).
    public static func removeDeletedUser(_ userID: String, _ tx: any Transaction, _ now: Int64) throws {
        try Self.removeScope(.user(userID), subject: .user(userID), tx, now)
    }

    /// Drops a deleted group's scope and the ACL entries naming it, in the deletion's transaction (a
    /// ``GroupDeletionStep``).
    public static func removeDeletedGroup(_ groupID: String, _ tx: any Transaction, _ now: Int64) throws {
        try Self.removeScope(.group(groupID), subject: .group(groupID), tx, now)
    }

    private static func removeScope(_ scope: ObjectScope, subject: ACLSubject, _ tx: any Transaction, _ now: Int64) throws {
        let access = ObjectAccess(tx: tx, caller: Caller(peer: PeerCredentials(uid: 0, gid: 0, pid: 0), isAdmin: true))
        for (bucket, _) in try tx.objects.buckets(scope: scope) { try Self.drop(access, bucket, now: now) }
        try tx.objects.deleteScope(scope)
        try tx.objects.deleteACLEntries(naming: subject)
    }
}
