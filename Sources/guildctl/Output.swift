import Foundation
import GuildJSON
import GuildProtocol

/// Printing results to stdout and messages to stderr, in human or machine (`--json`) form.
enum Output {
    /// Prints a result: compact JSON on one line with `json`, else a bare string or pretty-printed JSON.
    static func printResult(_ value: some Encodable, json: Bool) throws {
        let tree = try Self.tree(value)
        if json {
            print(try Self.compact(tree))
        } else if case .string(let text) = tree {
            print(text)
        } else {
            print(try Self.pretty(tree))
        }
    }

    /// Prints an object's members one per line as `key: value`, in `order` first, then the rest sorted.
    static func printFields(_ value: some Encodable, order: [String] = []) throws {
        let members = try Self.tree(value).objectValue ?? [:]
        let rest = members.keys.filter { !order.contains($0) }.sorted()
        for key in order + rest {
            guard let member = members[key] else { continue }
            if case .string(let text) = member {
                print("\(key): \(text)")
            } else {
                print("\(key): \(try Self.compact(member))")
            }
        }
    }

    /// Writes one line to stderr.
    static func printError(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// Converts any encodable value to its JSON tree.
    static func tree(_ value: some Encodable) throws -> JSONValue {
        if let tree = value as? JSONValue { return tree }
        return try RPCCoding.decode(JSONValue.self, from: RPCCoding.encode(value))
    }

    /// Compact JSON text with sorted keys.
    static func compact(_ value: some Encodable) throws -> String {
        try Self.text(value, formatting: [.sortedKeys, .withoutEscapingSlashes])
    }

    /// Pretty-printed JSON text with sorted keys, two-space indents, and `{}`/`[]` for empty containers.
    static func pretty(_ value: some Encodable) throws -> String {
        try Self.render(try Self.tree(value), indent: "")
    }

    private static func render(_ value: JSONValue, indent: String) throws -> String {
        let inner = indent + "  "
        switch value {
        case .object(let members) where !members.isEmpty:
            let lines = try members.keys.sorted().map { key in
                try inner + Self.compact(key) + ": " + Self.render(members[key] ?? .null, indent: inner)
            }
            return "{\n" + lines.joined(separator: ",\n") + "\n" + indent + "}"
        case .array(let elements) where !elements.isEmpty:
            let lines = try elements.map { try inner + Self.render($0, indent: inner) }
            return "[\n" + lines.joined(separator: ",\n") + "\n" + indent + "]"
        default:
            return try Self.compact(value)
        }
    }

    private static func text(_ value: some Encodable, formatting: JSONEncoder.OutputFormatting) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = formatting
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
