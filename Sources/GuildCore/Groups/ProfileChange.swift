import GuildJSON

/// Profile fields to set on a group (`group.create`, `group.setInfo`); nil leaves a field as it is.
public struct ProfileChange: Sendable, Hashable {
    public var name: String?
    public var introduction: String?
    public var notification: String?
    public var faceURL: String?
    public var addOption: AddOption?
    public var allMuted: Bool?
    public var custom: [String: String]?

    /// Creates a change.
    public init(
        name: String? = nil,
        introduction: String? = nil,
        notification: String? = nil,
        faceURL: String? = nil,
        addOption: AddOption? = nil,
        allMuted: Bool? = nil,
        custom: [String: String]? = nil
    ) {
        self.name = name
        self.introduction = introduction
        self.notification = notification
        self.faceURL = faceURL
        self.addOption = addOption
        self.allMuted = allMuted
        self.custom = custom
    }

    /// Tencent's group info change types (`V2TIMGroupInfoChangeType`), by the field that changed.
    public static let changeTypes: [String: Int] = [
        "name": 1, "introduction": 2, "notification": 3, "faceURL": 4, "owner": 5, "custom": 6, "shutUpAll": 8,
    ]

    /// Checks the IM byte limits (10004 naming the field).
    public func validate() throws(GuildError) {
        if let introduction { try GroupRules.validateBytes(introduction, max: GroupRules.Limit.introduction, field: "introduction") }
        if let notification { try GroupRules.validateBytes(notification, max: GroupRules.Limit.notification, field: "notification") }
        if let faceURL { try GroupRules.validateBytes(faceURL, max: GroupRules.Limit.faceURL, field: "faceURL") }
        if let custom { try GroupRules.validateCustom(custom, field: "custom") }
    }

    /// Whether it changes any field other than `allMuted` and `addOption` (what `editProfile` guards).
    public var editsProfile: Bool {
        self.name != nil || self.introduction != nil || self.notification != nil || self.faceURL != nil || self.custom != nil
    }

    /// Applies the change; returns what changed, as `groupInfoChanged` reports it (values by field name).
    public func apply(to group: inout Group) -> [String: JSONValue] {
        var changed: [String: JSONValue] = [:]
        if let name, name != group.name {
            group.name = name
            changed["name"] = .string(name)
        }
        if let introduction, introduction != group.introduction {
            group.introduction = introduction
            changed["introduction"] = .string(introduction)
        }
        if let notification, notification != group.notification {
            group.notification = notification
            changed["notification"] = .string(notification)
        }
        if let faceURL, faceURL != group.faceURL {
            group.faceURL = faceURL
            changed["faceURL"] = .string(faceURL)
        }
        if let addOption, addOption != group.addOption {
            group.addOption = addOption
            changed["addOpt"] = .string(addOption.rawValue)
        }
        if let allMuted, allMuted != group.allMuted {
            group.allMuted = allMuted
            changed["shutUpAll"] = .bool(allMuted)
        }
        if let custom, custom != group.custom {
            group.custom = custom
            changed["custom"] = .object(custom.mapValues { .string($0) })
        }
        return changed
    }

    /// `changes` of a `groupInfoChanged` event: the changed values plus `changeTypes`, Tencent's numbers, sorted.
    public static func eventChanges(_ changed: [String: JSONValue]) -> [String: JSONValue] {
        var changes = changed
        changes["changeTypes"] = .array(changed.keys.compactMap { Self.changeTypes[$0] }.sorted().map { .int(Int64($0)) })
        return changes
    }
}
