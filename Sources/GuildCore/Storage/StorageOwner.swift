/// Who stored data is charged to, for the per-owner storage quota (``StorageQuota``): a user, a group or a
/// thing, written `user:ID`, `group:ID` or `thing:ID` (the form of an object scope naming it).
///
/// The rule, kept in each engine's usage triggers too (`storage_usage`): an object is charged to the user who
/// created it (`_owner`), or, created by an admin or a thing, to the owner of its scope (none in the app
/// scope); states and commands to their thing; a group message to its sender.
public struct StorageOwner: Hashable, Sendable, CustomStringConvertible {
    /// The owner's key in the usage table.
    public var description: String

    /// An owner by its key.
    public init(_ key: String) {
        self.description = key
    }

    /// A user.
    public static func user(_ id: String) -> StorageOwner { StorageOwner("user:" + id) }
    /// A thing.
    public static func thing(_ id: String) -> StorageOwner { StorageOwner("thing:" + id) }

    /// Who an object is charged to: its creator, else its scope's owner (nil in the app scope: an admin's
    /// objects there are charged to no one).
    public static func of(_ object: StoredObject, in scope: ObjectScope) -> StorageOwner? {
        if let owner = object.owner { return .user(owner) }
        return scope.ownerSubject == nil ? nil : StorageOwner(scope.description)
    }
}

/// What stored data is counted as, in usage per owner and per area.
public enum StorageArea: String, Sendable, CaseIterable, Codable {
    /// Object bodies (their JSON).
    case objects
    /// Things' state history.
    case states
    /// Commands' requests and results.
    case commands
    /// Group messages' bodies.
    case messages
}
