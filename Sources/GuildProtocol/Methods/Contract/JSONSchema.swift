import GuildJSON

/// Building blocks for the JSON schemas of ``MethodContract`` and the document's component schemas.
public enum JSONSchema: Sendable {
    /// `{"type": "string"}`.
    public static let string: JSONValue = ["type": "string"]
    /// `{"type": "integer"}`.
    public static let integer: JSONValue = ["type": "integer"]
    /// `{"type": "number"}`.
    public static let number: JSONValue = ["type": "number"]
    /// `{"type": "boolean"}`.
    public static let boolean: JSONValue = ["type": "boolean"]
    /// `{"type": "object"}`: any object.
    public static let object: JSONValue = ["type": "object"]
    /// An object of string values.
    public static let stringMap: JSONValue = ["type": "object", "additionalProperties": string]
    /// A string or null.
    public static let nullableString: JSONValue = ["type": ["string", "null"]]
    /// An integer or null.
    public static let nullableInteger: JSONValue = ["type": ["integer", "null"]]

    /// A reference to a component schema of the document.
    public static func ref(_ name: String) -> JSONValue {
        ["$ref": .string("#/components/schemas/\(name)")]
    }

    /// An array of `items`.
    public static func array(of items: JSONValue) -> JSONValue {
        ["type": "array", "items": items]
    }

    /// One of the given strings.
    public static func oneOf(_ values: [String]) -> JSONValue {
        ["enum": .array(values.map { .string($0) })]
    }

    /// The raw values of an enum's cases.
    public static func oneOf<E: CaseIterable & RawRepresentable>(_ type: E.Type) -> JSONValue where E.RawValue == String {
        self.oneOf(type.allCases.map(\.rawValue))
    }

    /// An object with these properties, of which `required` must be present.
    public static func object(required: [String] = [], _ properties: [String: JSONValue]) -> JSONValue {
        var schema: [String: JSONValue] = ["type": "object", "properties": .object(properties)]
        if !required.isEmpty {
            schema["required"] = .array(required.map { .string($0) })
        }
        return .object(schema)
    }
}
