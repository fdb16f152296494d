import Foundation
import GuildJSON
import GuildProtocol

/// Parses JSON given on the command line. Failures are usage errors (exit 64): ArgumentParser reports them
/// as "The value '...' is invalid for '<option>': <description>".
enum JSONArgument {
    /// Why a command-line JSON value was refused.
    struct Invalid: Error, CustomStringConvertible {
        let description: String
    }

    /// Any JSON value.
    @Sendable
    static func value(_ text: String) throws -> JSONValue {
        do {
            return try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
        } catch {
            throw Invalid(description: "not valid JSON" + (Self.detail(text).map { " (\($0))" } ?? ""))
        }
    }

    /// Why `text` is not JSON, as Foundation's parser explains it.
    private static func detail(_ text: String) -> String? {
        do {
            _ = try JSONSerialization.jsonObject(with: Data(text.utf8), options: .fragmentsAllowed)
            return nil
        } catch {
            return (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String
        }
    }

    /// JSON-RPC params: an object or an array.
    @Sendable
    static func params(_ text: String) throws -> JSONValue {
        let value = try Self.value(text)
        switch value {
        case .object, .array: return value
        default: throw Invalid(description: "params must be a JSON object or array")
        }
    }

    /// A JSON object, such as custom user fields.
    @Sendable
    static func object(_ text: String) throws -> [String: JSONValue] {
        guard let members = try Self.value(text).objectValue else {
            throw Invalid(description: "expected a JSON object, such as '{\"age\": 42}'")
        }
        return members
    }
}
