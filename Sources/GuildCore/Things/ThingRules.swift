import GuildJSON

/// Thing-IF's input rules (../shared/reference/domain-rules.md §1.4, data-things-messages.md §4): ids,
/// passwords, actions, results and states. Pure functions; every failure is `invalidInput` naming its field
/// (a state over 10 KB is `stateTooLarge`).
public enum ThingRules {
    /// The longest vendorThingID and password.
    public static let maximumVendorThingIDLength = 200
    /// The largest state, in bytes of its JSON.
    public static let maximumStateBytes = 10_240
    /// The most actions in a command.
    public static let maximumActions = 100
    /// The longest command title and description (Thing-IF's limits).
    public static let maximumTitleLength = 50
    public static let maximumDescriptionLength = 200
    /// Device types an installation may have.
    public static let deviceTypes: Set<String> = ["ANDROID", "IOS", "JPUSH", "MQTT"]

    /// A vendorThingID: 1-200 of letters, digits, `-`, `_` and `.`.
    public static func checkVendorThingID(_ id: String) throws(GuildError) {
        guard !id.isEmpty, id.count <= Self.maximumVendorThingIDLength,
            id.utf8.allSatisfy({ Self.isVendorIDByte($0) })
        else {
            throw .invalidInput("a vendorThingID is 1-200 of [a-zA-Z0-9-_.]", field: "vendorThingID")
        }
    }

    /// A thing password: 1-200 printable characters (`^\p{Print}{1,200}`).
    public static func checkPassword(_ password: String, field: String = "thingPassword") throws(GuildError) {
        guard !password.isEmpty, password.count <= 200,
            password.unicodeScalars.allSatisfy({ !$0.properties.generalCategory.isControlOrUnassigned })
        else {
            throw .invalidInput("a thing password is 1-200 printable characters", field: field)
        }
    }

    /// A thingType or firmwareVersion: at most 100 of `[a-zA-Z0-9-_.]`.
    public static func checkPredefined(_ value: String?, field: String) throws(GuildError) {
        guard let value else { return }
        guard !value.isEmpty, value.count <= 100, value.utf8.allSatisfy({ Self.isVendorIDByte($0) }) else {
            throw .invalidInput("\(field) is 1-100 of [a-zA-Z0-9-_.]", field: field)
        }
    }

    /// Custom properties: `_` names dropped, at most 63 KB of JSON.
    public static func properties(_ properties: [String: JSONValue]?) throws(GuildError) -> [String: JSONValue] {
        var fields = properties ?? [:]
        for key in fields.keys where key.hasPrefix("_") { fields[key] = nil }
        guard Self.jsonSize(fields) <= 63 * 1024 else {
            throw .invalidInput("thingProperties are at most 63 KB of JSON", field: "thingProperties")
        }
        return fields
    }

    /// Custom properties after an update: `changes` merged over `existing` at the top level, a `null` value
    /// removing its key; `_` names dropped, at most 63 KB of JSON in all.
    public static func properties(_ existing: [String: JSONValue], merging changes: [String: JSONValue]) throws(GuildError) -> [String: JSONValue] {
        var fields = existing
        for (key, value) in changes where !key.hasPrefix("_") {
            if value == .null {
                fields.removeValue(forKey: key)
            } else {
                fields[key] = value
            }
        }
        return try Self.properties(fields)
    }

    /// A command's actions: 1-100 single-key objects whose key is a non-empty name.
    public static func checkActions(_ actions: [JSONValue]) throws(GuildError) {
        guard !actions.isEmpty, actions.count <= Self.maximumActions else {
            throw .invalidInput("a command has 1-\(Self.maximumActions) actions", field: "actions")
        }
        for (index, action) in actions.enumerated() {
            guard let object = action.objectValue, object.count == 1, let name = object.keys.first, !name.isEmpty,
                name.utf8.count <= 128
            else {
                throw .invalidInput("action \(index) is not a single-key object {name: params}", field: "actions")
            }
        }
    }

    /// The command texts: schema 1-128 characters, schemaVersion at least 1, title at most 50 and
    /// description at most 200 characters, metadata at most 10 KB.
    public static func checkCommandTexts(
        schema: String,
        schemaVersion: Int,
        title: String?,
        description: String?,
        metadata: [String: JSONValue]?
    )
        throws(GuildError)
    {
        guard !schema.isEmpty, schema.count <= 128 else { throw .invalidInput("schema is 1-128 characters", field: "schema") }
        guard schemaVersion >= 1 else { throw .invalidInput("schemaVersion is at least 1", field: "schemaVersion") }
        if let title, title.count > Self.maximumTitleLength {
            throw .invalidInput("a title is at most \(Self.maximumTitleLength) characters", field: "title")
        }
        if let description, description.count > Self.maximumDescriptionLength {
            throw .invalidInput("a description is at most \(Self.maximumDescriptionLength) characters", field: "description")
        }
        if let metadata {
            guard Self.jsonSize(metadata) <= 10_240 else { throw .invalidInput("metadata is at most 10 KB of JSON", field: "metadata") }
        }
    }

    /// Action results: one per action, in the actions' order, each `{name: {succeeded, errorMessage?, data?}}`
    /// with the action's name. Returns whether every action succeeded.
    public static func checkResults(_ results: [JSONValue], for actions: [JSONValue]) throws(GuildError) -> Bool {
        let names = actions.compactMap { $0.objectValue?.keys.first }
        guard results.count == names.count else {
            throw .invalidInput(
                "actionResults has \(results.count) results for \(names.count) actions; one per action, in order",
                field: "actionResults"
            )
        }
        var allSucceeded = true
        for (index, result) in results.enumerated() {
            guard let object = result.objectValue, object.count == 1, let name = object.keys.first else {
                throw .invalidInput("result \(index) is not a single-key object {name: {succeeded, ...}}", field: "actionResults")
            }
            guard name == names[index] else {
                throw .invalidInput("result \(index) is for \(name), but action \(index) is \(names[index])", field: "actionResults")
            }
            guard let body = object[name]?.objectValue, let succeeded = body["succeeded"]?.boolValue else {
                throw .invalidInput("result \(index) needs succeeded (a Boolean)", field: "actionResults")
            }
            if let message = body["errorMessage"], message.stringValue == nil, message != .null {
                throw .invalidInput("result \(index)'s errorMessage is a string", field: "actionResults")
            }
            for key in body.keys where !["succeeded", "errorMessage", "data"].contains(key) {
                throw .invalidInput("result \(index) has \(key); a result holds succeeded, errorMessage and data", field: "actionResults")
            }
            if !succeeded { allSucceeded = false }
        }
        return allSucceeded
    }

    /// A state: a JSON object of at most 10 KB.
    public static func checkState(_ state: [String: JSONValue]) throws(GuildError) {
        let size = Self.jsonSize(state)
        guard size <= Self.maximumStateBytes else {
            throw GuildError(.stateTooLarge, "a state is at most \(Self.maximumStateBytes) bytes of JSON; this one is \(size)", field: "state")
        }
    }

    /// An installation's device type.
    public static func checkDeviceType(_ type: String) throws(GuildError) {
        guard Self.deviceTypes.contains(type) else {
            throw .invalidInput("deviceType is one of \(Self.deviceTypes.sorted().joined(separator: ", "))", field: "deviceType")
        }
    }

    /// The size of an object's compact JSON, in bytes (what the limits count).
    static func jsonSize(_ fields: [String: JSONValue]) -> Int {
        var bytes: [UInt8] = []
        JSONValue.object(fields).writeJSON(to: &bytes)
        return bytes.count
    }

    private static func isVendorIDByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."):
            true
        default: false
        }
    }
}

extension Unicode.GeneralCategory {
    /// Control, format, surrogate, private-use and unassigned scalars: not printable.
    var isControlOrUnassigned: Bool {
        switch self {
        case .control, .format, .surrogate, .privateUse, .unassigned, .lineSeparator, .paragraphSeparator: true
        default: false
        }
    }
}
