/// Where a bucket lives: the app, a group, a user or a thing (Kii's data scopes). Written `app`, `group:ID`,
/// `user:ID` or `thing:ID` on the wire; a bucket's name is unique within its scope only.
public enum ObjectScope: Hashable, Sendable, CustomStringConvertible {
    case app
    case group(String)
    case user(String)
    case thing(String)

    /// Parses the wire form; `invalidInput` on anything else.
    public init(_ text: String, field: String = "scope") throws(GuildError) {
        if text == "app" {
            self = .app
            return
        }
        guard let colon = text.firstIndex(of: ":") else {
            throw .invalidInput("a scope is app, group:ID, user:ID or thing:ID", field: field)
        }
        let id = String(text[text.index(after: colon)...])
        guard !id.isEmpty, id.utf8.count <= 128, !id.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "/") }) else {
            throw .invalidInput("a scope's id is 1-128 bytes without control characters or /", field: field)
        }
        switch text[..<colon] {
        case "group": self = .group(id)
        case "user": self = .user(id)
        case "thing": self = .thing(id)
        default: throw .invalidInput("a scope is app, group:ID, user:ID or thing:ID", field: field)
        }
    }

    /// The wire form.
    public var description: String {
        switch self {
        case .app: "app"
        case .group(let id): "group:" + id
        case .user(let id): "user:" + id
        case .thing(let id): "thing:" + id
        }
    }

    /// The subject that owns the scope's data and whose rights are fixed (none for the app scope, whose owner
    /// is the app admin).
    public var ownerSubject: ACLSubject? {
        switch self {
        case .app: nil
        case .group(let id): .group(id)
        case .user(let id): .user(id)
        case .thing(let id): .thing(id)
        }
    }
}
