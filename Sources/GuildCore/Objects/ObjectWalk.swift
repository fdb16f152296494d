import Foundation
import GuildJSON

/// How a query reads a bucket: every object in creation order, the objects holding one of some values at a
/// path (from the field index, in creation order), or every object in the order of a field (the index's
/// order: Booleans, then numbers, then strings; objects without the field after them, in creation order).
public enum ObjectWalk: Hashable, Sendable {
    case all
    case holding(FieldPath, [FieldValue])
    case ordered(FieldPath, descending: Bool)
}

/// Where a walk stopped: what a query's paging key holds, sealed (``PageKeys``) before a client sees it.
public enum ObjectCursor: Hashable, Sendable {
    /// After this object, in creation order (``ObjectWalk/all`` and ``ObjectWalk/holding(_:_:)``, and the
    /// objects lacking the field of an ordered walk).
    case after(Int64)
    /// After this value and object in an ordered walk.
    case afterValue(FieldValue, Int64)

    /// The position as JSON (`[row]` or `[row, value]`), to be sealed.
    public var bytes: [UInt8] {
        var array: [JSONValue]
        switch self {
        case .after(let row): array = [.int(row)]
        case .afterValue(let value, let row): array = [.int(row), value.json]
        }
        var bytes: [UInt8] = []
        JSONValue.array(array).writeJSON(to: &bytes)
        return bytes
    }

    /// Reads a position written by ``bytes``; `invalidInput` for anything else.
    public init(bytes: [UInt8]) throws(GuildError) {
        guard let json = try? JSONDecoder().decode(JSONValue.self, from: Data(bytes)), case .array(let items) = json,
            let row = items.first?.intValue
        else {
            throw .invalidInput("not a paginationKey this daemon handed out", field: "paginationKey")
        }
        switch items.count {
        case 1: self = .after(row)
        case 2:
            guard let value = FieldValue(items[1]) else { throw .invalidInput("not a paginationKey this daemon handed out", field: "paginationKey") }
            self = .afterValue(value, row)
        default: throw .invalidInput("not a paginationKey this daemon handed out", field: "paginationKey")
        }
    }
}
