import GuildJSON

/// Kii Cloud's validation rules for users (protocol/users-and-groups.md, Users).
public enum UserRules {
    /// Login names: 3 to 64 of `[A-Za-z0-9._-]`.
    public static let usernameLength = 3...64
    /// Passwords: 4 to 50 printable ASCII characters (U+0020 to U+007E; space allowed).
    public static let passwordLength = 4...50
    /// Display names: at most 50 characters.
    public static let displayNameMaximum = 50
    /// Email local parts: at most 256 characters.
    public static let emailLocalPartMaximum = 256
    /// Custom fields: at most 63 KB of JSON in total.
    public static let fieldsMaximumBytes = 63 * 1024

    /// Checks a login name.
    public static func validateUsername(_ value: String, field: String = "username") throws(GuildError) {
        guard Self.usernameLength.contains(value.unicodeScalars.count) else {
            throw .invalidInput("username must be 3 to 64 characters", field: field)
        }
        for scalar in value.unicodeScalars {
            switch scalar {
            case "A"..."Z", "a"..."z", "0"..."9", ".", "_", "-": continue
            default: throw .invalidInput("username may contain only A-Z, a-z, 0-9, '.', '_' and '-'", field: field)
            }
        }
    }

    /// Checks a password.
    public static func validatePassword(_ value: String, field: String = "password") throws(GuildError) {
        guard Self.passwordLength.contains(value.unicodeScalars.count) else {
            throw .invalidInput("password must be 4 to 50 characters", field: field)
        }
        guard value.unicodeScalars.allSatisfy({ (0x20...0x7E).contains($0.value) }) else {
            throw .invalidInput("password may contain only printable ASCII characters", field: field)
        }
    }

    /// Checks a display name.
    public static func validateDisplayName(_ value: String) throws(GuildError) {
        guard value.count <= Self.displayNameMaximum else {
            throw .invalidInput("displayName must be at most 50 characters", field: "displayName")
        }
    }

    /// Checks an email address: one `@`, a local part of 1 to 256 characters, a dotted domain, no spaces and no
    /// control characters.
    public static func validateEmail(_ value: String) throws(GuildError) {
        let parts = value.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[0].count <= Self.emailLocalPartMaximum,
            parts[1].contains("."), !parts[1].hasPrefix("."), !parts[1].hasSuffix("."),
            !value.contains(where: { $0.isWhitespace || $0.isNewline }), value.count <= 320,
            !value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            throw .invalidInput("email must be a valid address", field: "email")
        }
    }

    /// Checks a phone number: E.164 style, an optional `+` then 4 to 20 digits.
    public static func validatePhone(_ value: String) throws(GuildError) {
        var digits = Substring(value)
        if digits.hasPrefix("+") { digits = digits.dropFirst() }
        guard (4...20).contains(digits.count), digits.allSatisfy({ $0.isASCII && $0.isNumber }) else {
            throw .invalidInput("phone must be '+' and 4 to 20 digits", field: "phone")
        }
    }

    /// Checks every part of a login identity that is present.
    public static func validate(_ identity: LoginIdentity) throws(GuildError) {
        if let username = identity.username { try Self.validateUsername(username) }
        if let email = identity.email { try Self.validateEmail(email) }
        if let phone = identity.phone { try Self.validatePhone(phone) }
    }

    /// Drops names starting with `_` (as Kii does, silently) and enforces the 63 KB total.
    public static func sanitizeFields(_ fields: [String: JSONValue]) throws(GuildError) -> [String: JSONValue] {
        let kept = fields.filter { !$0.key.hasPrefix("_") }
        let size = JSONValue.object(kept).jsonBytes.count
        guard size <= Self.fieldsMaximumBytes else {
            throw .invalidInput("custom fields must total at most 63 KB of JSON (got \(size) bytes)", field: "fields")
        }
        return kept
    }

    /// Merges a patch of fields into existing ones (`.null` removes a field) and checks the result.
    public static func merge(
        _ patch: [String: JSONValue],
        into fields: [String: JSONValue]
    ) throws(GuildError)
        -> [String: JSONValue]
    {
        var merged = fields
        for (key, value) in patch where !key.hasPrefix("_") {
            if value == .null { merged[key] = nil } else { merged[key] = value }
        }
        return try Self.sanitizeFields(merged)
    }
}
