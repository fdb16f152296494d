/// A Kii ACL action: what an entry allows, on one of three levels (scope, bucket, object).
public enum ACLAction: String, CaseIterable, Hashable, Sendable {
    case createNewBucket = "CREATE_NEW_BUCKET"
    case createObjectsInBucket = "CREATE_OBJECTS_IN_BUCKET"
    case queryObjectsInBucket = "QUERY_OBJECTS_IN_BUCKET"
    case readObjectsInBucket = "READ_OBJECTS_IN_BUCKET"
    case dropBucketWithAllContent = "DROP_BUCKET_WITH_ALL_CONTENT"
    case readExistingObject = "READ_EXISTING_OBJECT"
    case writeExistingObject = "WRITE_EXISTING_OBJECT"

    /// The level of target an action is set on.
    public enum Level: Sendable, Hashable {
        case scope, bucket, object
    }

    /// The level the action belongs to.
    public var level: Level {
        switch self {
        case .createNewBucket: .scope
        case .createObjectsInBucket, .queryObjectsInBucket, .readObjectsInBucket, .dropBucketWithAllContent: .bucket
        case .readExistingObject, .writeExistingObject: .object
        }
    }

    /// The actions of a level, in the order `acl.get` lists them.
    public static func actions(of level: Level) -> [ACLAction] {
        self.allCases.filter { $0.level == level }
    }

    /// Parses an action, case-insensitively; `invalidInput` naming the level's actions otherwise.
    public init(wire text: String, level: Level, field: String) throws(GuildError) {
        guard let action = ACLAction(rawValue: text.uppercased()) else {
            throw .invalidInput(
                "unknown ACL action \(text); actions are \(ACLAction.allCases.map(\.rawValue).joined(separator: ", "))",
                field: field
            )
        }
        guard action.level == level else {
            let allowed = ACLAction.actions(of: level).map(\.rawValue).joined(separator: ", ")
            throw .invalidInput("\(action.rawValue) is not an action of this level; here: \(allowed)", field: field)
        }
        self = action
    }
}
