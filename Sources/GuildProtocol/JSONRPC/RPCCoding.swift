import Foundation
import GuildJSON

/// The JSON coding conventions of the wire: compact output, unescaped slashes, and errors that name fields.
public enum RPCCoding: Sendable {
    /// Encodes a value as compact JSON (through its own writer when it is ``JSONWritable``).
    public static func encode(_ value: some Encodable) throws -> [UInt8] {
        if let writable = value as? any JSONWritable {
            // JSON has no NaN or infinity: refuse them (as JSONEncoder does) rather than write `null`.
            if let json = value as? JSONValue, let number = json.firstNonFiniteNumber {
                throw EncodingError.invalidValue(
                    number,
                    EncodingError.Context(codingPath: [], debugDescription: "JSON cannot hold the non-finite number \(number)")
                )
            }
            var bytes: [UInt8] = []
            writable.writeJSON(to: &bytes)
            return bytes
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        return Array(try encoder.encode(value))
    }

    /// Decodes a value from JSON text (through its own reader when it is ``JSONReadable`` and the reader
    /// handles the text).
    public static func decode<T: Decodable>(_ type: T.Type, from bytes: some Collection<UInt8>) throws -> T {
        if let value = Self.read(type, from: bytes) { return value }
        return try JSONDecoder().decode(type, from: Data(bytes))
    }

    /// Decodes method parameters, turning a decoding failure into a -32602 error that names the field.
    public static func decodeParams<T: Decodable>(_ type: T.Type, from bytes: some Collection<UInt8>) throws(RPCError) -> T {
        if let value = Self.read(type, from: bytes) { return value }
        do {
            return try JSONDecoder().decode(type, from: Data(bytes))
        } catch let error as DecodingError {
            if case .dataCorrupted(let context) = error, context.codingPath.isEmpty, let unfit = Self.unfitNumber(type, in: Array(bytes)) {
                throw unfit
            }
            throw Self.invalidParams(error)
        } catch {
            throw .invalidParams("\(error)", field: nil)
        }
    }

    /// Describes a decoding failure as an invalid-params error naming the offending field.
    public static func invalidParams(_ error: DecodingError) -> RPCError {
        func path(_ codingPath: [any CodingKey], _ last: (any CodingKey)? = nil) -> String? {
            let path = Self.fieldPath(codingPath + (last.map { [$0] } ?? []))
            return path.isEmpty ? nil : path
        }
        switch error {
        case .keyNotFound(let key, let context):
            let field = path(context.codingPath, key) ?? key.stringValue
            return .invalidParams("missing required parameter \"\(field)\"", field: field)
        case .typeMismatch(let type, let context):
            let field = path(context.codingPath)
            return .invalidParams("\"\(field ?? "params")\" must be of type \(Self.typeName(type))", field: field)
        case .valueNotFound(let type, let context):
            let field = path(context.codingPath)
            return .invalidParams("\"\(field ?? "params")\" must not be null (\(Self.typeName(type)))", field: field)
        case .dataCorrupted(let context):
            let field = path(context.codingPath)
            return .invalidParams("\"\(field ?? "params")\": \(context.debugDescription)", field: field)
        @unknown default:
            return .invalidParams("\(error)", field: nil)
        }
    }

    /// A coding path as `data.field` names it: keys dotted, array positions in brackets (`fields.color`,
    /// `actions[0].turnPower`); empty for the params themselves.
    static func fieldPath(_ codingPath: [any CodingKey]) -> String {
        // Array positions come as "Index N" keys; a dictionary key that looks like a number ("5") is a name.
        let parts = codingPath.map { key in
            if let index = key.intValue, key.stringValue.hasPrefix("Index ") { return "[\(index)]" }
            return key.stringValue
        }
        return parts.reduce("") { text, part in
            text.isEmpty ? part : (part.hasPrefix("[") ? text + part : text + "." + part)
        }
    }

    private static func typeName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "string"
        case is Bool.Type: "boolean"
        case is Int.Type, is Int64.Type, is Int32.Type, is UInt64.Type: "integer"
        case is Double.Type, is Float.Type: "number"
        default:
            String(describing: type).hasPrefix("Array") ? "array" : "object"
        }
    }
}
