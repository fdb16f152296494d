import GuildJSON

/// The text forms of the generated contract files: pretty JSON for `protocol/openrpc.json`.
public enum ContractText: Sendable {
    /// Keys that come first in an object, in this order (the rest follow alphabetically), so the document
    /// reads top-down: a method's name before its details, a schema's type before its members.
    static let leadingKeys = [
        "openrpc", "info", "title", "version", "servers", "name", "url", "summary", "description", "tags", "x-auth",
        "x-expensive", "paramStructure", "params", "schema", "required", "result", "errors", "examples", "value",
        "code", "message", "data", "x-notifications", "components", "schemas", "$ref", "type", "const", "enum",
    ]

    private static let rank: [String: Int] = Dictionary(
        uniqueKeysWithValues: leadingKeys.enumerated().map { ($0.element, $0.offset) }
    )

    /// `value` as JSON indented by two spaces, with a final newline.
    public static func prettyJSON(_ value: JSONValue) -> String {
        var text = ""
        Self.write(value, indent: 0, to: &text)
        text.append("\n")
        return text
    }

    private static func write(_ value: JSONValue, indent: Int, to text: inout String) {
        let inner = String(repeating: " ", count: indent + 2)
        switch value {
        case .null: text.append("null")
        case .bool(let value): text.append(value ? "true" : "false")
        case .int(let value): text.append(String(value))
        case .double(let value): text.append(String(value))
        case .string(let value): Self.writeString(value, to: &text)
        case .array(let elements):
            guard !elements.isEmpty else { return text.append("[]") }
            text.append("[\n")
            for (index, element) in elements.enumerated() {
                text.append(inner)
                Self.write(element, indent: indent + 2, to: &text)
                text.append(index == elements.count - 1 ? "\n" : ",\n")
            }
            text.append(String(repeating: " ", count: indent) + "]")
        case .object(let members):
            guard !members.isEmpty else { return text.append("{}") }
            let keys = members.keys.sorted { lhs, rhs in
                let left = Self.rank[lhs] ?? Int.max
                let right = Self.rank[rhs] ?? Int.max
                return left != right ? left < right : lhs < rhs
            }
            text.append("{\n")
            for (index, key) in keys.enumerated() {
                text.append(inner)
                Self.writeString(key, to: &text)
                text.append(": ")
                Self.write(members[key] ?? .null, indent: indent + 2, to: &text)
                text.append(index == keys.count - 1 ? "\n" : ",\n")
            }
            text.append(String(repeating: " ", count: indent) + "}")
        }
    }

    private static func writeString(_ string: String, to text: inout String) {
        text.append("\"")
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": text.append("\\\"")
            case "\\": text.append("\\\\")
            case "\n": text.append("\\n")
            case "\r": text.append("\\r")
            case "\t": text.append("\\t")
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                text.append("\\u" + String(repeating: "0", count: 4 - hex.count) + hex)
            default: text.unicodeScalars.append(scalar)
            }
        }
        text.append("\"")
    }
}
