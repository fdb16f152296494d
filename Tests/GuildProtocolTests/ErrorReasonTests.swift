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
private func backticked(_ line: Substring) -> [String] {
    let pieces = line.split(separator: "`", omittingEmptySubsequences: false)
    return pieces.indices.filter { $0 % 2 == 1 && $0 < pieces.count - 1 }.map { String(pieces[$0]) }
}

struct ErrorReasonTests {
    /// Every `ErrorReason` constant, listed by hand so a constant missing from the catalog is caught.
    static let allReasons: [String] = [
        ErrorReason.parseError, ErrorReason.nestingTooDeep, ErrorReason.invalidRequest, ErrorReason.emptyBatch,
        ErrorReason.batchTooLarge, ErrorReason.frameTooLarge, ErrorReason.methodNotFound, ErrorReason.invalidParams,
        ErrorReason.invalidInputData, ErrorReason.internalError, ErrorReason.tooManyRequests,
        ErrorReason.tooManyConnections, ErrorReason.shuttingDown, ErrorReason.unauthorized,
        ErrorReason.invalidCredentials, ErrorReason.invalidToken, ErrorReason.invalidRefreshToken,
        ErrorReason.permissionDenied, ErrorReason.userNotFound, ErrorReason.userAlreadyExists,
        ErrorReason.identityAlreadySet,
    ]

    /// Every `ErrorCode` constant.
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
        #expect(Set(Self.catalogReasons) == Set(Self.allReasons))
        #expect(Set(ErrorReason.catalog.map(\.code)) == Set(Self.allCodes))
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

    /// `protocol/errors.md` documents every code and reason, and nothing else that looks like a reason.
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

        let allTicked = Set(text.split(separator: "\n").flatMap(backticked))
        for entry in ErrorReason.catalog {
            #expect(allTicked.contains(String(entry.code.rawValue)), "code `\(entry.code.rawValue)` is not in errors.md")
            for reason in entry.reasons {
                #expect(allTicked.contains(reason), "reason `\(reason)` is not in errors.md")
            }
        }

        let tableRows = text.split(separator: "\n").filter { $0.trimmingCharacters(in: .whitespaces).hasPrefix("|") }
        #expect(!tableRows.isEmpty, "errors.md has no table")
        let known = Set(Self.catalogReasons)
        for row in tableRows {
            for word in backticked(row) where isUpperSnake(word) && word.count > 2 {
                #expect(known.contains(word), "errors.md lists `\(word)`, which is not in ErrorReason.catalog")
            }
        }
    }
}
