/// Validation of group inputs: Kii's rules for Basic groups (protocol/users-and-groups.md), Tencent's byte limits
/// for the IM types (protocol/im-groups.md).
public enum GroupRules {
    /// Basic group ids: at most 30 of `[a-z0-9_.-]`, not empty.
    public static func validateGroupID(_ id: String) throws(GuildError) {
        guard (1...30).contains(id.unicodeScalars.count),
            id.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("0"..."9").contains($0) || "_.-".unicodeScalars.contains($0) })
        else {
            throw .invalidInput("groupID must be 1 to 30 of a-z, 0-9, '_', '.' and '-'", field: "groupID")
        }
    }

    /// IM group ids: 1 to 48 bytes of printable ASCII without spaces, not starting `@TGS#` (reserved for
    /// generated ids); Community ids must start `@TGS#_`.
    public static func validateIMGroupID(_ id: String, type: GroupType) throws(GuildError) {
        let printable = id.utf8.allSatisfy { (0x21...0x7E).contains($0) }
        guard (1...48).contains(id.utf8.count), printable else {
            throw GuildError(.invalidGroupID, "groupID must be 1 to 48 bytes of printable ASCII without spaces", field: "groupID")
        }
        if type == .community {
            guard id.hasPrefix("@TGS#_") else {
                throw GuildError(.invalidGroupID, "Community group ids must start with @TGS#_", field: "groupID")
            }
        } else if id.hasPrefix("@TGS#") {
            throw GuildError(.invalidGroupID, "group ids starting with @TGS# are reserved for generated ids", field: "groupID")
        }
    }

    /// A group name under its type's rules: Kii's 1 to 190 characters, or Tencent's 1 to 30 bytes.
    public static func validateName(_ name: String, _ policy: GroupPolicy) throws(GuildError) {
        if policy.kiiRules {
            try validateName(name)
        } else {
            try validateBytes(name, max: Limit.name, field: "name", allowEmpty: false)
        }
    }

    /// Basic group names: 1 to 190 characters.
    public static func validateName(_ name: String) throws(GuildError) {
        guard (1...190).contains(name.count) else {
            throw .invalidInput("name must be 1 to 190 characters", field: "name")
        }
    }

    /// The byte limits of the IM profile: the group name as Tencent's group management guide states it (30 bytes; newer headers allow
    /// 100), the other fields as Tencent's current headers (see protocol/im-groups.md).
    public enum Limit {
        public static let name = 30
        public static let introduction = 400
        public static let notification = 400
        public static let faceURL = 500
        public static let customKey = 16
        public static let customValue = 512
        public static let nameCard = 50
        public static let attributeCount = 16
        public static let attributeKey = 32
        public static let attributeValue = 4 * 1024
        public static let attributesTotal = 16 * 1024
        public static let message = 12 * 1024
        public static let requestMessage = 300
    }

    /// Checks a string against a byte limit (10004 when over, or when empty and `allowEmpty` is false).
    public static func validateBytes(_ value: String, max: Int, field: String, allowEmpty: Bool = true) throws(GuildError) {
        let count = value.utf8.count
        guard count <= max, allowEmpty || count > 0 else {
            throw GuildError(.imInvalidParameters, "\(field) must be \(allowEmpty ? 0 : 1) to \(max) bytes", field: field)
        }
    }

    /// Checks custom fields: keys 1 to 16 bytes, values at most 512 bytes.
    public static func validateCustom(_ custom: [String: String], field: String) throws(GuildError) {
        for (key, value) in custom {
            try validateBytes(key, max: Limit.customKey, field: "\(field).\(key)", allowEmpty: false)
            try validateBytes(value, max: Limit.customValue, field: "\(field).\(key)")
        }
    }

    /// Checks a group's attributes against Tencent's limits: at most 16 keys of 1 to 32 bytes, values of at most
    /// 4 KB, 16 KB in all.
    public static func validateAttributes(_ values: [String: String]) throws(GuildError) {
        guard values.count <= Limit.attributeCount else {
            throw GuildError(.imInvalidParameters, "a group has at most \(Limit.attributeCount) attributes", field: "attributes")
        }
        var total = 0
        for (key, value) in values {
            try validateBytes(key, max: Limit.attributeKey, field: "attributes.\(key)", allowEmpty: false)
            try validateBytes(value, max: Limit.attributeValue, field: "attributes.\(key)")
            total += key.utf8.count + value.utf8.count
        }
        guard total <= Limit.attributesTotal else {
            throw GuildError(.imInvalidParameters, "attributes are at most \(Limit.attributesTotal) bytes in all", field: "attributes")
        }
    }

    /// The caller's standing in a group, as the policy table reads it.
    public static func standing(of caller: Caller, in membership: Membership?) -> Actors {
        var actors: Actors = caller.isAdmin ? .appAdmin : []
        switch membership?.role {
        case .owner: actors.insert(.owner)
        case .admin: actors.insert(.admin)
        case .member: actors.insert(.member)
        case nil: if caller.session != nil { actors.insert(.outsider) }
        }
        return actors
    }
}
