import GuildJSON

/// A bucket: named in its scope, created by its first object or ACL entry.
public struct Bucket: Hashable, Sendable {
    /// The store's key for it.
    public var rowID: Int64
    public var scope: ObjectScope
    public var name: String
    /// The user who created it (nil: an admin or an anonymous caller).
    public var creator: String?
    public var created: Int64

    public init(rowID: Int64, scope: ObjectScope, name: String, creator: String?, created: Int64) {
        self.rowID = rowID
        self.scope = scope
        self.name = name
        self.creator = creator
        self.created = created
    }
}

/// An object in a bucket: the client's fields and the ones Guild keeps.
public struct StoredObject: Hashable, Sendable {
    /// The store's key for it (its position in creation order).
    public var rowID: Int64
    public var objectID: String
    /// The client's fields (none starting with `_`).
    public var fields: [String: JSONValue]
    /// 1 at creation, one more at each change (`_version`, a string on the wire as in Kii).
    public var version: Int64
    public var created: Int64
    public var modified: Int64
    /// The user who created it (`_owner`); nil for an admin's or an anonymous caller's object.
    public var owner: String?
    /// Whether its ACL was ever changed; until then its default entries apply and are not stored.
    public var aclWritten: Bool

    public init(
        rowID: Int64,
        objectID: String,
        fields: [String: JSONValue],
        version: Int64,
        created: Int64,
        modified: Int64,
        owner: String?,
        aclWritten: Bool = false
    ) {
        self.rowID = rowID
        self.objectID = objectID
        self.fields = fields
        self.version = version
        self.created = created
        self.modified = modified
        self.owner = owner
        self.aclWritten = aclWritten
    }

    /// The object as clients and queries see it: its fields and `_id`, `_version`, `_created`, `_modified`,
    /// `_owner`.
    public var view: [String: JSONValue] {
        var view = self.fields
        view["_id"] = .string(self.objectID)
        view["_version"] = .string(String(self.version))
        view["_created"] = .int(self.created)
        view["_modified"] = .int(self.modified)
        if let owner = self.owner { view["_owner"] = .string(owner) }
        return view
    }

    /// The scalars the field index keeps: every Boolean, number and string reached through objects (not
    /// arrays), at most ``FieldPath/maximumKeys`` keys deep, with their dotted paths (keys holding a `.`, which
    /// no path can name, are left out); and the reserved fields but `_id` (the object's own key).
    public var indexedFields: [(path: String, value: FieldValue)] {
        var fields: [(path: String, value: FieldValue)] = []
        func walk(_ object: [String: JSONValue], prefix: String, depth: Int) {
            for (key, value) in object where !key.contains(".") && (depth > 1 || key != "_id") {
                let path = prefix.isEmpty ? key : prefix + "." + key
                if case .object(let nested) = value {
                    if depth < FieldPath.maximumKeys { walk(nested, prefix: path, depth: depth + 1) }
                } else if let scalar = FieldValue(value) {
                    fields.append((path, scalar))
                }
            }
        }
        walk(self.view, prefix: "", depth: 1)
        return fields
    }
}
