/// Who an ACL entry names, in Kii's string forms: `UserID:ID`, `GroupID:ID` (the group's members at the moment
/// of each check), `ThingID:ID`, `UserID:ANY_AUTHENTICATED_USER` (anyone with a session) and
/// `UserID:ANONYMOUS_USER` (anyone at all).
public enum ACLSubject: Hashable, Sendable, CustomStringConvertible {
    case user(String)
    case group(String)
    case thing(String)
    case anyAuthenticated
    case anonymous

    /// Parses Kii's string form; `invalidInput` otherwise.
    public init(wire text: String, field: String = "subject") throws(GuildError) {
        guard let colon = text.firstIndex(of: ":") else {
            throw .invalidInput(Self.formHelp(text), field: field)
        }
        let id = String(text[text.index(after: colon)...])
        guard !id.isEmpty, id.utf8.count <= 128, !id.utf8.contains(where: { $0 < 0x20 }) else {
            throw .invalidInput(Self.formHelp(text), field: field)
        }
        switch text[..<colon] {
        case "UserID":
            switch id {
            case "ANY_AUTHENTICATED_USER": self = .anyAuthenticated
            case "ANONYMOUS_USER": self = .anonymous
            default: self = .user(id)
            }
        case "GroupID": self = .group(id)
        case "ThingID": self = .thing(id)
        default: throw .invalidInput(Self.formHelp(text), field: field)
        }
    }

    private static func formHelp(_ text: String) -> String {
        "malformed ACL subject \(text.prefix(64)); subjects are UserID:ID, GroupID:ID, ThingID:ID, UserID:ANY_AUTHENTICATED_USER or UserID:ANONYMOUS_USER"
    }

    /// Kii's string form.
    public var description: String {
        switch self {
        case .user(let id): "UserID:" + id
        case .group(let id): "GroupID:" + id
        case .thing(let id): "ThingID:" + id
        case .anyAuthenticated: "UserID:ANY_AUTHENTICATED_USER"
        case .anonymous: "UserID:ANONYMOUS_USER"
        }
    }
}
