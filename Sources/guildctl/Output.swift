import Foundation
import GuildJSON
import GuildProtocol

/// Printing results to stdout and messages to stderr, in human or machine (`--json`) form.
enum Output {
    /// Prints a result: compact JSON on one line with `json`, else text for people (see ``human(_:showTokens:)``).
    static func printResult(_ value: some Encodable, json: Bool, showTokens: Bool = false) throws {
        let tree = try Self.tree(value)
        if json {
            print(try Self.compact(tree))
        } else {
            let text = Self.human(tree, showTokens: showTokens)
            if !text.isEmpty { print(text) }
        }
    }

    /// Members that hold secrets: left out of human output unless `--show-token` asks for them.
    static let secretKeys: Set<String> = ["accessToken", "refreshToken"]

    /// A JSON result as text for people: a string as it is; a list of records as an aligned table; a record
    /// as a key-value block (nested records as `outer.inner`, times as "3 min ago"), with its one list of
    /// records, if any, as a table below; `(none)` for an empty list.
    static func human(_ value: JSONValue, showTokens: Bool = false, now: Date = Date()) -> String {
        switch value {
        case .array(let elements):
            if elements.isEmpty { return "(none)" }
            if elements.allSatisfy({ $0.objectValue != nil }) {
                return Self.recordTable(elements.compactMap(\.objectValue), now: now).joined(separator: "\n")
            }
            return elements.map { Self.scalar($0, key: "", now: now) }.joined(separator: "\n")
        case .object(let members):
            var rows: [(String, String)] = []
            var tables: [(String, [[String: JSONValue]])] = []
            Self.flatten(members, prefix: "", showTokens: showTokens, now: now, into: &rows, tables: &tables)
            var lines = Self.block(rows)
            for (key, records) in tables {
                if !lines.isEmpty { lines.append("") }
                lines.append(Self.heading(key) + ":")
                lines += records.isEmpty ? ["(none)"] : Self.recordTable(records, now: now)
            }
            return lines.joined(separator: "\n")
        default:
            return Self.scalar(value, key: "", now: now)
        }
    }

    private static func flatten(
        _ members: [String: JSONValue],
        prefix: String,
        showTokens: Bool,
        now: Date,
        into rows: inout [(String, String)],
        tables: inout [(String, [[String: JSONValue]])]
    ) {
        for key in Self.ordered(members.keys) {
            guard let member = members[key] else { continue }
            if Self.secretKeys.contains(key), !showTokens { continue }
            let name = prefix.isEmpty ? key : prefix + "." + key
            switch member {
            case .object(let inner) where !inner.isEmpty:
                Self.flatten(inner, prefix: name, showTokens: showTokens, now: now, into: &rows, tables: &tables)
            case .array(let elements) where !elements.isEmpty && elements.allSatisfy({ $0.objectValue != nil }):
                tables.append((name, elements.compactMap(\.objectValue)))
            case .array(let elements) where elements.isEmpty && prefix.isEmpty && Self.listKeys.contains(key):
                tables.append((name, []))
            default:
                rows.append((name, Self.scalar(member, key: key, now: now)))
            }
        }
    }

    /// Members that are lists of records even when empty.
    private static let listKeys: Set<String> = ["members", "groups", "results", "applications", "events", "messages"]

    /// Keys in reading order: ids first, then names, then the rest alphabetically.
    static func ordered(_ keys: some Collection<String>) -> [String] {
        func rank(_ key: String) -> Int {
            if key.hasSuffix("ID") { return 0 }
            if key == "name" || key == "username" || key == "displayName" { return 1 }
            return 2
        }
        return keys.sorted { (rank($0), $0) < (rank($1), $1) }
    }

    /// An aligned table of records: one column per member any record has (nested values as compact JSON).
    static func recordTable(_ records: [[String: JSONValue]], now: Date) -> [String] {
        var keys: Set<String> = []
        for record in records { keys.formUnion(record.keys.filter { !Self.secretKeys.contains($0) }) }
        let columns = Self.ordered(keys)
        let rows = records.map { record in columns.map { key in record[key].map { Self.scalar($0, key: key, now: now) } ?? "-" } }
        return Self.table(headers: columns.map(Self.heading), rows: rows)
    }

    /// Rows under upper-case headers, columns two spaces apart, no trailing blanks.
    static func table(headers: [String], rows: [[String]]) -> [String] {
        var widths = headers.map(\.count)
        for row in rows {
            for (index, cell) in row.enumerated() where index < widths.count {
                widths[index] = max(widths[index], cell.count)
            }
        }
        return ([headers] + rows).map { row in
            let cells = row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : Self.padded(cell, widths[index])
            }
            return Self.trimmedRight(cells.joined(separator: "  "))
        }
    }

    /// `text` cut into lines of at most `width` characters at spaces (a longer word stays whole).
    static func wrapped(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var current = ""
        for word in text.split(separator: " ") {
            if !current.isEmpty, current.count + 1 + word.count > width {
                lines.append(current)
                current = ""
            }
            current += (current.isEmpty ? "" : " ") + word
        }
        if !current.isEmpty || lines.isEmpty { lines.append(current) }
        return lines
    }

    /// The terminal's width: `$COLUMNS`, else 100.
    static var terminalWidth: Int {
        Environment.value("COLUMNS").flatMap(Int.init).map { max(40, $0) } ?? 100
    }

    /// `key:  value` lines with the values aligned.
    static func block(_ rows: [(String, String)]) -> [String] {
        let width = rows.map { $0.0.count }.max() ?? 0
        return rows.map { key, value in Self.trimmedRight(Self.padded(key + ":", width + 1) + " " + value) }
    }

    /// `userID` → `USER ID`, `memberCount` → `MEMBER COUNT`, `groups` → `GROUPS`.
    static func heading(_ key: String) -> String {
        var words: [String] = []
        var current = ""
        for character in key {
            if character.isUppercase, !current.isEmpty, !(current.last?.isUppercase ?? false) {
                words.append(current)
                current = ""
            }
            current.append(character)
        }
        if !current.isEmpty { words.append(current) }
        return words.joined(separator: " ").uppercased()
    }

    /// One value as text: strings bare, null as `-`, times (`...At` in ms) relative, lists comma-separated.
    static func scalar(_ value: JSONValue, key: String, now: Date) -> String {
        switch value {
        case .string(let text): return text
        case .null: return "-"
        case .bool(let flag): return flag ? "yes" : "no"
        case .object(let members) where members.isEmpty: return "-"
        case .array(let elements) where elements.allSatisfy({ !Self.isContainer($0) }):
            return elements.isEmpty ? "-" : elements.map { Self.scalar($0, key: "", now: now) }.joined(separator: ", ")
        default:
            if key.hasSuffix("At"), let milliseconds = value.intValue {
                return Self.relativeTime(milliseconds: milliseconds, now: now)
            }
            return (try? Self.compact(value)) ?? "?"
        }
    }

    /// "just now", "3 min ago", "in 2 h", "5 days ago" for a time in ms since the epoch.
    static func relativeTime(milliseconds: Int64, now: Date) -> String {
        let seconds = Double(milliseconds) / 1000 - now.timeIntervalSince1970
        let magnitude = abs(seconds)
        if magnitude < 60 { return seconds < 0 ? "just now" : "in under a minute" }
        let amount: String
        switch magnitude {
        case ..<3600: amount = "\(Int(magnitude / 60)) min"
        case ..<86_400: amount = "\(Int(magnitude / 3600)) h"
        case ..<(86_400 * 365): amount = Self.plural(Int(magnitude / 86_400), "day")
        default: amount = Self.plural(Int(magnitude / (86_400 * 365)), "year")
        }
        return seconds < 0 ? amount + " ago" : "in " + amount
    }

    private static func isContainer(_ value: JSONValue) -> Bool {
        switch value {
        case .array, .object: true
        default: false
        }
    }

    static func plural(_ count: Int, _ noun: String) -> String {
        count == 1 ? "1 \(noun)" : "\(count) \(noun)s"
    }

    static func padded(_ text: String, _ width: Int) -> String {
        text + String(repeating: " ", count: max(0, width - text.count))
    }

    static func trimmedRight(_ text: String) -> String {
        String(text.reversed().drop(while: { $0 == " " }).reversed())
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
