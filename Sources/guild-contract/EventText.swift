import Foundation
import GuildCore
import GuildJSON
import GuildProtocol

/// The files generated from the event areas' declarations (``EventAreas/declared``, each area's
/// ``EventAudience/fields``): the wire's event type, `GuildEvent`, and its schemas in the contract. An area
/// declares its events' members once, in its own folder of the rules module; this writes what the wire
/// contract and the clients see of them.
enum EventText {
    static let header = ContractText.generatedHeader(
        from: "the event areas' declarations (EventAreas.declared in Sources/GuildCore/Events/EventAreas.swift, each area's fields)",
        comment: "//"
    )

    /// One member of the wire type: a name, its shape, and the areas that declare it with their summaries.
    struct Member {
        var name: String
        var shape: EventField.Shape
        var declarations: [(area: String, field: EventField)]
    }

    /// The members of every area in declaration order, each once (areas that share a name share its shape).
    static func members(_ areas: [any EventAudience]) -> [Member] {
        var members: [Member] = []
        for area in areas {
            for field in area.fields {
                if let index = members.firstIndex(where: { $0.name == field.name }) {
                    precondition(
                        members[index].shape == field.shape,
                        "\(field.name) is \(members[index].shape) in one area and \(field.shape) in \(area.area)"
                    )
                    members[index].declarations.append((area.area, field))
                } else {
                    members.append(Member(name: field.name, shape: field.shape, declarations: [(area.area, field)]))
                }
            }
        }
        return members
    }

    static func swiftType(_ shape: EventField.Shape) -> String {
        switch shape {
        case .string: "String"
        case .integer: "Int64"
        case .boolean: "Bool"
        case .strings: "[String]"
        case .object: "[String: JSONValue]"
        case .values: "[JSONValue]"
        case .aclEntries: "[ACLMethods.Entry]"
        }
    }

    /// A field's summary with the kinds that carry it, when not all of its area's.
    static func summary(_ field: EventField) -> String {
        field.kinds.isEmpty ? field.summary + "." : field.summary + ". In " + field.kinds.joined(separator: ", ") + "."
    }

    /// `Sources/GuildProtocol/Types/GuildEvent.swift`.
    static func guildEventSwift(_ areas: [any EventAudience] = EventAreas.declared) -> String {
        var lines =
            Self.header + [
                "",
                "import GuildJSON",
                "",
                "/// An event as subscribers receive it: `seq`, `kind` and `time`, and the members of its area: "
                    + areas.map { "`\($0.area)`" }.joined(separator: ", ") + ".",
                "/// A member is nil when the event's area or kind does not carry it (``kinds`` lists each area's kinds).",
                "public struct GuildEvent: Codable, Hashable, Sendable {",
            ]
        for field in EventField.common {
            lines += ContractText.docComment(field.summary + ".", indent: "    ")
            lines.append("    public var \(field.name): \(Self.swiftType(field.shape))")
        }
        let members = Self.members(areas)
        for member in members {
            let text =
                member.declarations.count == 1
                ? Self.summary(member.declarations[0].field)
                : member.declarations.map { "\($0.area.prefix(1).uppercased() + $0.area.dropFirst()) events: " + Self.summary($0.field) }
                    .joined(separator: " ")
            lines += ContractText.docComment(text, indent: "    ")
            lines.append("    public var \(member.name): \(Self.swiftType(member.shape))?")
        }
        lines += ["", "    /// Creates an event."]
        let parameters =
            EventField.common.map { "\($0.name): \(Self.swiftType($0.shape))" }
            + members.map { "\($0.name): \(Self.swiftType($0.shape))? = nil" }
        lines.append("    public init(")
        lines += parameters.enumerated().map { "        \($1)" + ($0 == parameters.count - 1 ? "" : ",") }
        lines.append("    ) {")
        lines += (EventField.common.map(\.name) + members.map(\.name)).map { "        self.\($0) = \($0)" }
        lines += [
            "    }",
            "",
            "    /// Every area's event kinds, by topic area.",
        ]
        let kinds = JSONValue.object(Dictionary(uniqueKeysWithValues: areas.map { ($0.area, .array($0.kinds.map { .string($0) })) }))
        let prefix = "    public static let kinds: [String: [String]] = "
        lines += [prefix + Self.literal(kinds, indent: "    ", column: prefix.count, trailing: 0), "}", ""]
        return lines.joined(separator: "\n")
    }

    /// The JSON schema of one member.
    static func schema(_ field: EventField) -> JSONValue {
        var schema: [String: JSONValue]
        switch field.shape {
        case .string: schema = ["type": "string"]
        case .integer: schema = ["type": "integer"]
        case .boolean: schema = ["type": "boolean"]
        case .strings: schema = ["type": "array", "items": ["type": "string"]]
        case .object: schema = ["type": "object"]
        case .values: schema = ["type": "array"]
        case .aclEntries:
            schema = [
                "type": "array",
                "items": [
                    "type": "object", "required": ["action", "subject"],
                    "properties": ["action": ["type": "string"], "subject": ["type": "string"]],
                ],
            ]
        }
        if field.nullable, case .string(let type)? = schema["type"] { schema["type"] = [.string(type), "null"] }
        schema["description"] = .string(Self.summary(field))
        return .object(schema)
    }

    /// The contract's event schemas: one per area (`GroupEvent`, ...), and `Event`, one of them.
    static func schemas(_ areas: [any EventAudience] = EventAreas.declared) -> [(name: String, schema: JSONValue)] {
        var schemas: [(name: String, schema: JSONValue)] = []
        for area in areas {
            var properties: [String: JSONValue] = [:]
            var required: [JSONValue] = []
            for field in EventField.common + area.fields {
                properties[field.name] = Self.schema(field)
                if field.always && field.kinds.isEmpty { required.append(.string(field.name)) }
            }
            properties["kind"] = ["enum": .array(area.kinds.map { .string($0) }), "description": "What happened"]
            let name = area.area.prefix(1).uppercased() + area.area.dropFirst() + "Event"
            schemas.append(
                (
                    name,
                    [
                        "type": "object",
                        "description": .string("An event of the \(area.area) area (topics \(area.area):<id>)"),
                        "required": .array(required),
                        "properties": .object(properties),
                    ]
                )
            )
        }
        let event: JSONValue = [
            "description": "An event as subscribers receive it: one of the areas' events, told apart by kind",
            "oneOf": .array(schemas.map { ["$ref": .string("#/components/schemas/\($0.name)")] }),
        ]
        return [("Event", event)] + schemas
    }

    /// `Sources/GuildProtocol/Types/GuildEvent+Schema.swift`: the schemas as a Swift literal, which
    /// `OpenRPCContract` puts in the document's components.
    static func schemaSwift(_ areas: [any EventAudience] = EventAreas.declared) -> String {
        var lines =
            Self.header + [
                "",
                "import GuildJSON",
                "",
                "extension GuildEvent {",
                "    /// The contract's event schemas: `Event`, one of the areas' events, and one schema per area.",
                "    public static let schemas: KeyValuePairs<String, JSONValue> = [",
            ]
        for (name, schema) in Self.schemas(areas) {
            let prefix = "        \"\(name)\": "
            lines.append(prefix + Self.literal(schema, indent: "        ", column: prefix.count) + ",")
        }
        lines += ["    ]", "}", ""]
        return lines.joined(separator: "\n")
    }

    /// A JSON value as a Swift literal of `JSONValue` that starts at `column` of a line indented by `indent`,
    /// laid out as `swift format` lays it out: on one line when it fits in 150 columns with what follows it
    /// (`trailing` characters), else one element per line; objects' keys sorted.
    static func literal(_ value: JSONValue, indent: String, column: Int, trailing: Int = 1) -> String {
        let inline = Self.inlineLiteral(value)
        let inner = indent + "    "
        switch value {
        case .array(let values) where column + inline.count + trailing > 150 && !values.isEmpty:
            let lines = values.map { inner + Self.literal($0, indent: inner, column: inner.count) + ",\n" }
            return "[\n" + lines.joined() + indent + "]"
        case .object(let members) where column + inline.count + trailing > 150 && !members.isEmpty:
            let lines = members.sorted { $0.key < $1.key }.map { key, value in
                let prefix = inner + Self.quoted(key) + ": "
                return prefix + Self.literal(value, indent: inner, column: prefix.count) + ",\n"
            }
            return "[\n" + lines.joined() + indent + "]"
        default:
            return inline
        }
    }

    /// A JSON value as a one-line Swift literal of `JSONValue`.
    static func inlineLiteral(_ value: JSONValue) -> String {
        switch value {
        case .null: "nil"
        case .bool(let value): value ? "true" : "false"
        case .int(let value): String(value)
        case .double(let value): String(value)
        case .string(let value): Self.quoted(value)
        case .array(let values): "[" + values.map(Self.inlineLiteral).joined(separator: ", ") + "]"
        case .object(let members) where members.isEmpty: "[:]"
        case .object(let members):
            "[" + members.sorted { $0.key < $1.key }.map { Self.quoted($0.key) + ": " + Self.inlineLiteral($0.value) }.joined(separator: ", ") + "]"
        }
    }

    static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    /// The files this writes, as `ContractText` lists its own.
    static func generatedFiles() -> [ContractText.GeneratedFile] {
        [
            ContractText.GeneratedFile(path: "Sources/GuildProtocol/Types/GuildEvent.swift", text: Self.guildEventSwift()),
            ContractText.GeneratedFile(path: "Sources/GuildProtocol/Types/GuildEvent+Schema.swift", text: Self.schemaSwift()),
        ]
    }
}
