/// What an event is about, as `area:id`: `group:<groupID>` today; later `bucket:...`, `thing:<id>`, `user:<id>`.
///
/// The area names the feature area that owns the event's kinds and its audience rule (see ``EventAudience``);
/// the id is the area's own. Stored as one string, so matching a topic costs one string hash.
public struct EventTopic: Hashable, Sendable, CustomStringConvertible {
    /// `area:id`, as stored and as subscribers name it.
    public let rawValue: String

    /// A topic of `area` (letters, digits and `-`) about `id`.
    public init(area: String, id: String) {
        self.rawValue = area + ":" + id
    }

    /// Parses `area:id`; nil unless the area is non-empty letters, digits or `-` and the id is non-empty.
    public init?(_ text: String) {
        guard let colon = text.utf8.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        let area = text.utf8[..<colon]
        guard !area.isEmpty, area.allSatisfy(Self.isAreaByte), text.utf8.index(after: colon) != text.utf8.endIndex else {
            return nil
        }
        self.rawValue = text
    }

    /// The feature area: the text before the first `:`.
    public var area: Substring {
        guard let colon = self.rawValue.firstIndex(of: ":") else { return self.rawValue[...] }
        return self.rawValue[..<colon]
    }

    /// The area's id: the text after the first `:`.
    public var id: Substring {
        guard let colon = self.rawValue.firstIndex(of: ":") else { return "" }
        return self.rawValue[self.rawValue.index(after: colon)...]
    }

    public var description: String { self.rawValue }

    /// Whether `byte` may appear in an area name.
    static func isAreaByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"):
            true
        default: false
        }
    }
}
