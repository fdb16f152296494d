import Foundation

/// A libpq password file (`~/.pgpass`): lines of `hostname:port:database:username:password`, each field
/// possibly `*`, with `\:` and `\\` escaping. Like libpq, a file readable by group or others is refused.
struct PasswordFile {
    struct Entry: Equatable {
        var host: String
        var port: String
        var database: String
        var user: String
        var password: String
    }

    let entries: [Entry]

    /// Reads the file at `path`; nil when there is none.
    init?(path: String) throws {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        if status.st_mode & 0o077 != 0 { throw PostgresStoreError.passwordFileTooOpen(path: path) }
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        self.init(text: text)
    }

    init(text: String) {
        self.entries = text.split(whereSeparator: \.isNewline).compactMap { line in
            if line.hasPrefix("#") { return nil }
            let fields = Self.fields(of: line)
            guard fields.count == 5 else { return nil }
            return Entry(host: fields[0], port: fields[1], database: fields[2], user: fields[3], password: fields[4])
        }
    }

    /// The first entry's password that matches, as libpq picks it.
    func password(host: String, port: Int, database: String, user: String) -> String? {
        func matches(_ pattern: String, _ value: String) -> Bool { pattern == "*" || pattern == value }
        return self.entries.first {
            matches($0.host, host) && matches($0.port, String(port)) && matches($0.database, database) && matches($0.user, user)
        }?.password
    }

    private static func fields(of line: Substring) -> [String] {
        var fields: [String] = []
        var current = ""
        var escaped = false
        for character in line {
            if escaped {
                current.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == ":", fields.count < 4 {
                fields.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        fields.append(current)
        return fields
    }
}
