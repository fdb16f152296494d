import Foundation
import GRDB

/// Free text stored and read without losing a byte.
///
/// GRDB binds a `String` as a C string (`sqlite3_bind_text` with length -1) and reads one back with
/// `String(cString:)`, so a string holding U+0000 would be stored, or read, cut at its first NUL. Text that holds
/// a NUL is therefore stored as a BLOB of its UTF-8 bytes, and free-text columns are read through
/// ``GRDB/Row/text(at:)`` (or the byte-counted readers of ``UserRecord``), which take TEXT and BLOB alike, whole.
/// Text without a NUL (all the ids, names and keys that are looked up or compared) stays TEXT.
enum StoredText {
    /// The database value of `text`: NULL, TEXT, or for text holding a NUL, a BLOB of its UTF-8 bytes.
    static func value(_ text: String?) -> DatabaseValue {
        guard let text else { return .null }
        return text.utf8.contains(0) ? Data(text.utf8).databaseValue : text.databaseValue
    }

    /// Statement arguments with every string bound through ``value(_:)``: stored text keeps its NULs, and a key
    /// holding a NUL (`"g1\u{0}x"`) matches nothing instead of the `"g1"` GRDB's C-string binding would look up.
    static func arguments(_ values: [(any DatabaseValueConvertible)?]) -> StatementArguments {
        // Through the initializer of optional existentials: the one of a sequence of `DatabaseValue` maps it with a
        // key path that is built anew at each call (a third of a point lookup's time in a profile).
        StatementArguments(
            values.map { value -> (any DatabaseValueConvertible)? in
                if let text = value as? String { return Self.value(text) }
                return value
            }
        )
    }
}

extension Row {
    /// The text in the column at `index`, whole, whether stored as TEXT or (holding a NUL) as a BLOB; nil for NULL.
    func text(at index: Int) -> String? {
        Self.text(self[index] as DatabaseValue)
    }

    /// The text in the column named `column`, whole, whether stored as TEXT or as a BLOB; nil for NULL.
    func text(named column: String) -> String? {
        Self.text(self[column] as DatabaseValue? ?? .null)
    }

    private static func text(_ value: DatabaseValue) -> String? {
        switch value.storage {
        case .string(let text): text
        case .blob(let bytes): String(decoding: bytes, as: UTF8.self)
        case .int64(let number): String(number)
        case .double(let number): String(number)
        case .null: nil
        }
    }
}
