import Foundation
import GuildCore
import GuildJSON

/// JSON kept in a BLOB column: compact text, written and read with GuildJSON.
enum StoredJSON {
    /// A value's compact JSON text.
    static func data(_ value: JSONValue) -> Data {
        var bytes: [UInt8] = []
        value.writeJSON(to: &bytes)
        return Data(bytes)
    }

    /// An object's compact JSON text.
    static func data(_ fields: [String: JSONValue]) -> Data {
        Self.data(.object(fields))
    }

    /// A stored value.
    static func value(_ data: Data) throws -> JSONValue {
        try data.withUnsafeBytes { try JSONValue(parsing: $0) }
    }

    /// A stored object; `internalError`-like failure when it is not one.
    static func object(_ data: Data) throws -> [String: JSONValue] {
        guard case .object(let members) = try Self.value(data) else {
            throw GuildError(.invalidInput, "a stored JSON object is not an object")
        }
        return members
    }
}
