import GuildJSON

/// Hand-written JSON for the profile and `user.update`'s params, the hot path of profile writes: the same
/// text `JSONEncoder` writes (keys sorted, absent optionals left out), and a reader that takes what
/// `JSONDecoder` takes in the common shapes and defers to it otherwise.
extension UserProfile: JSONWritable, JSONReadable {
    public func writeJSON(to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "{"))
        JSONText.appendKey("createdAt", to: &bytes)
        JSONText.appendInteger(self.createdAt, to: &bytes)
        JSONText.appendMember("displayName", self.displayName, to: &bytes)
        JSONText.appendMember("email", self.email, to: &bytes)
        if let fields = self.fields {
            bytes.append(UInt8(ascii: ","))
            JSONText.appendKey("fields", to: &bytes)
            JSONValue.object(fields).writeJSON(to: &bytes)
        }
        bytes.append(UInt8(ascii: ","))
        JSONText.appendKey("isPseudo", to: &bytes)
        JSONText.appendBool(self.isPseudo, to: &bytes)
        if let modifiedAt = self.modifiedAt {
            bytes.append(UInt8(ascii: ","))
            JSONText.appendKey("modifiedAt", to: &bytes)
            JSONText.appendInteger(modifiedAt, to: &bytes)
        }
        JSONText.appendMember("phone", self.phone, to: &bytes)
        JSONText.appendMember("userID", self.userID, to: &bytes)
        JSONText.appendMember("username", self.username, to: &bytes)
        bytes.append(UInt8(ascii: "}"))
    }

    public init?(json value: JSONScanner.Value, in bytes: UnsafeRawBufferPointer) {
        guard value.kind == .object else { return nil }
        var userID: String?
        var isPseudo: Bool?
        var createdAt: Int64?
        var profile = UserProfile(userID: "", isPseudo: false, createdAt: 0)
        for member in JSONScanner(maximumDepth: .max).members(of: value, in: bytes) {
            let value = member.value
            switch member.key {
            case "userID": userID = value.string(in: bytes)
            case "isPseudo": isPseudo = value.bool(in: bytes)
            case "createdAt": createdAt = value.int64(in: bytes)
            case "username": guard Self.optional(value, bytes, into: &profile.username) else { return nil }
            case "email": guard Self.optional(value, bytes, into: &profile.email) else { return nil }
            case "phone": guard Self.optional(value, bytes, into: &profile.phone) else { return nil }
            case "displayName": guard Self.optional(value, bytes, into: &profile.displayName) else { return nil }
            case "modifiedAt":
                if value.isNull {
                    profile.modifiedAt = nil
                } else {
                    guard let modifiedAt = value.int64(in: bytes) else { return nil }
                    profile.modifiedAt = modifiedAt
                }
            case "fields":
                // Only the common shapes; anything else goes through JSONDecoder.
                if value.isNull {
                    profile.fields = nil
                } else if value.isEmptyObject(in: bytes) {
                    profile.fields = [:]
                } else {
                    return nil
                }
            default: continue
            }
        }
        guard let userID, let isPseudo, let createdAt else { return nil }
        profile.userID = userID
        profile.isPseudo = isPseudo
        profile.createdAt = createdAt
        self = profile
    }

    /// Reads an optional string member: null or a string; false for anything else.
    static func optional(_ value: JSONScanner.Value, _ bytes: UnsafeRawBufferPointer, into target: inout String?) -> Bool {
        if value.isNull {
            target = nil
            return true
        }
        guard let string = value.string(in: bytes) else { return false }
        target = string
        return true
    }
}

extension UserMethods.Update.Params: JSONWritable, JSONReadable {
    public func writeJSON(to bytes: inout [UInt8]) {
        var body: [UInt8] = []
        JSONText.appendMember("displayName", self.displayName, to: &body)
        JSONText.appendMember("email", self.email, to: &body)
        if let fields = self.fields {
            body.append(UInt8(ascii: ","))
            JSONText.appendKey("fields", to: &body)
            JSONValue.object(fields).writeJSON(to: &body)
        }
        JSONText.appendMember("phone", self.phone, to: &body)
        JSONText.appendMember("userID", self.userID, to: &body)
        bytes.append(UInt8(ascii: "{"))
        bytes.append(contentsOf: body.dropFirst())  // the leading comma
        bytes.append(UInt8(ascii: "}"))
    }

    public init?(json value: JSONScanner.Value, in bytes: UnsafeRawBufferPointer) {
        guard value.kind == .object else { return nil }
        var params = Self()
        for member in JSONScanner(maximumDepth: .max).members(of: value, in: bytes) {
            let value = member.value
            switch member.key {
            case "userID": guard UserProfile.optional(value, bytes, into: &params.userID) else { return nil }
            case "displayName": guard UserProfile.optional(value, bytes, into: &params.displayName) else { return nil }
            case "email": guard UserProfile.optional(value, bytes, into: &params.email) else { return nil }
            case "phone": guard UserProfile.optional(value, bytes, into: &params.phone) else { return nil }
            case "fields":
                if value.isNull {
                    params.fields = nil
                } else {
                    return nil  // free-form fields go through JSONDecoder
                }
            default: continue
            }
        }
        self = params
    }
}

extension JSONText {
    /// Appends `,"key":"value"` when `value` is present.
    @inlinable
    public static func appendMember(_ key: StaticString, _ value: String?, to bytes: inout [UInt8]) {
        guard let value else { return }
        bytes.append(UInt8(ascii: ","))
        Self.appendKey(key, to: &bytes)
        Self.appendString(value, to: &bytes)
    }
}
