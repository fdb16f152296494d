import Foundation
import GuildProtocol
import Testing

/// Whether `text` is an UPPER_SNAKE word: capitals and digits, single underscores between parts.
private func isUpperSnake(_ text: String) -> Bool {
    let parts = text.split(separator: "_", omittingEmptySubsequences: false)
    guard let first = text.unicodeScalars.first, ("A"..."Z").contains(first) else { return false }
    return parts.allSatisfy { part in
        !part.isEmpty && part.unicodeScalars.allSatisfy { ("A"..."Z").contains($0) || ("0"..."9").contains($0) }
    }
}

/// The texts between backticks on one line.
private func backticked(_ line: some StringProtocol) -> [String] {
    let pieces = line.split(separator: "`", omittingEmptySubsequences: false)
    return pieces.indices.filter { $0 % 2 == 1 && $0 < pieces.count - 1 }.map { String(pieces[$0]) }
}

/// A Markdown table: header cells (trimmed, lowercased) and data rows (trimmed cells).
private struct MarkdownTable {
    var header: [String]
    var rows: [[String]]
}

/// The tables of a Markdown text.
private func markdownTables(_ text: String) -> [MarkdownTable] {
    func cells(_ line: Substring) -> [String] {
        var trimmed = line.trimmingCharacters(in: .whitespaces)
        if trimmed.hasPrefix("|") { trimmed.removeFirst() }
        if trimmed.hasSuffix("|") { trimmed.removeLast() }
        return trimmed.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
    }
    var tables: [MarkdownTable] = []
    var current: [Substring] = []
    var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    lines.append("")  // ends the last table
    for line in lines {
        if line.trimmingCharacters(in: .whitespaces).hasPrefix("|") {
            current.append(line)
            continue
        }
        if current.count >= 2 {
            tables.append(MarkdownTable(header: cells(current[0]).map { $0.lowercased() }, rows: current.dropFirst(2).map(cells)))
        }
        current = []
    }
    return tables
}

struct ErrorReasonTests {
    /// The `ErrorReason` constants known when this test was written, so one missing from the catalog is caught.
    static let allReasons: [String] = [
        ErrorReason.parseError, ErrorReason.nestingTooDeep, ErrorReason.invalidRequest, ErrorReason.emptyBatch,
        ErrorReason.batchTooLarge, ErrorReason.frameTooLarge, ErrorReason.methodNotFound, ErrorReason.invalidParams,
        ErrorReason.invalidInputData, ErrorReason.internalError, ErrorReason.tooManyRequests,
        ErrorReason.tooManyConnections, ErrorReason.shuttingDown, ErrorReason.unauthorized,
        ErrorReason.invalidCredentials, ErrorReason.invalidToken, ErrorReason.invalidRefreshToken,
        ErrorReason.permissionDenied, ErrorReason.userNotFound, ErrorReason.userAlreadyExists,
        ErrorReason.identityAlreadySet,
    ]

    /// The `ErrorCode` constants known when this test was written.
    static let allCodes: [ErrorCode] = [
        .parseError, .invalidRequest, .methodNotFound, .invalidParams, .internalError, .tooManyRequests,
        .tooManyConnections, .shuttingDown, .unauthorized, .invalidCredentials, .invalidToken, .invalidRefreshToken,
        .permissionDenied, .userNotFound, .userAlreadyExists, .identityAlreadySet,
    ]

    static var catalogReasons: [String] { ErrorReason.catalog.flatMap(\.reasons) }

    @Test
    func everyReasonIsUpperSnake() {
        for reason in Self.catalogReasons + Self.allReasons {
            #expect(isUpperSnake(reason), "\(reason)")
        }
        #expect(isUpperSnake("PARSE_ERROR"))
        #expect(!isUpperSnake("Parse_Error"))
        #expect(!isUpperSnake("PARSE__ERROR"))
        #expect(!isUpperSnake("_PARSE"))
    }

    @Test
    func catalogCodesAreUnique() {
        let codes = ErrorReason.catalog.map(\.code.rawValue)
        #expect(Set(codes).count == codes.count)
    }

    @Test
    func catalogReasonsAreUniqueAndNonEmptyPerCode() {
        #expect(Set(Self.catalogReasons).count == Self.catalogReasons.count)
        for entry in ErrorReason.catalog {
            #expect(!entry.reasons.isEmpty, "code \(entry.code) has no reason")
        }
    }

    @Test
    func catalogCoversEveryReasonAndCodeConstant() {
        // Subsets, so adding a new code and reason to the catalog does not break this test.
        #expect(Set(Self.allReasons).subtracting(Self.catalogReasons).isEmpty)
        #expect(Set(Self.allCodes).subtracting(ErrorReason.catalog.map(\.code)).isEmpty)
    }

    @Test
    func factoryReasonsBelongToTheirCodesInTheCatalog() {
        let reasonsByCode = Dictionary(uniqueKeysWithValues: ErrorReason.catalog.map { ($0.code, Set($0.reasons)) })
        for error in [
            RPCError.parseError("x"), .invalidRequest("x"), .methodNotFound("x"), .invalidParams("x", field: nil),
            .internalError,
        ] {
            let reason = error.reason ?? ""
            #expect(reasonsByCode[error.code]?.contains(reason) == true, "\(error)")
        }
    }

    /// `protocol/errors.md` documents every code and reason, and its tables list no reason the catalog lacks.
    @Test
    func catalogAgreesWithErrorsMarkdown() throws {
        let root = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()  // GuildProtocolTests
            .deletingLastPathComponent()  // Tests
            .deletingLastPathComponent()  // package root
        let url = root.appendingPathComponent("protocol/errors.md")
        let exists = FileManager.default.fileExists(atPath: url.path)
        try #require(exists, "protocol/errors.md is missing at \(url.path)")
        let text = try String(contentsOf: url, encoding: .utf8)

        // Every catalog code and reason appears in backticks.
        let allTicked = Set(text.split(separator: "\n").flatMap { backticked($0) })
        for entry in ErrorReason.catalog {
            #expect(allTicked.contains(String(entry.code.rawValue)), "code `\(entry.code.rawValue)` is not in errors.md")
            for reason in entry.reasons {
                #expect(allTicked.contains(reason), "reason `\(reason)` is not in errors.md")
            }
        }

        // Every reason in a table's `reason` column is in the catalog, under the code of its row.
        let known = Set(Self.catalogReasons)
        let reasonsByCode = Dictionary(uniqueKeysWithValues: ErrorReason.catalog.map { ($0.code.rawValue, Set($0.reasons)) })
        var documented: Set<String> = []
        for table in markdownTables(text) {
            guard let reasonColumn = table.header.firstIndex(of: "reason") else { continue }
            let codeColumn = table.header.firstIndex(of: "code")
            for row in table.rows where reasonColumn < row.count {
                let words = backticked(row[reasonColumn]).filter(isUpperSnake)
                #expect(!words.isEmpty, "a row of errors.md has no reason: \(row)")
                for word in words {
                    documented.insert(word)
                    #expect(known.contains(word), "errors.md lists `\(word)`, which is not in ErrorReason.catalog")
                    guard let codeColumn, codeColumn < row.count,
                        let code = backticked(row[codeColumn]).compactMap({ Int($0) }).first
                    else { continue }
                    #expect(
                        reasonsByCode[code]?.contains(word) == true,
                        "errors.md lists `\(word)` under code `\(code)`; the catalog does not"
                    )
                }
            }
        }
        #expect(documented == known, "the reason columns of errors.md and the catalog differ")
    }
}
