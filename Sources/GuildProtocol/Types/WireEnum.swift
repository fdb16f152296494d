/// An enumerated param: decoded from one of its raw values in any letter case (or from one of ``aliases``),
/// encoded as its raw value. A value that is none of them is an invalid param naming the field.
public protocol WireEnum: RawRepresentable, CaseIterable, Codable, Hashable, Sendable where RawValue == String {
    /// Other names for raw values, keyed in lowercase (e.g. the REST API's names of Tencent's join options).
    static var aliases: [String: String] { get }
}

extension WireEnum {
    public static var aliases: [String: String] { [:] }

    /// The case `value` names, in any letter case or by an alias; nil for none.
    public init?(lenient value: String) {
        if let exact = Self(rawValue: value) {
            self = exact
            return
        }
        let folded = Self.aliases[value.lowercased()]?.lowercased() ?? value.lowercased()
        guard let known = Self.allCases.first(where: { $0.rawValue.lowercased() == folded }) else { return nil }
        self = known
    }

    /// The raw values, for messages: `A, B, C`.
    public static var choices: String { Self.allCases.map(\.rawValue).joined(separator: ", ") }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let value = try container.decode(String.self)
        guard let known = Self(lenient: value) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "must be one of \(Self.choices)")
        }
        self = known
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(self.rawValue)
    }
}
