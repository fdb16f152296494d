import GuildCore
import GuildJSON
import GuildProtocol

extension GuildError {
    /// The wire form of a domain error: the code and reason of the catalog entry its code was generated from.
    var rpcError: RPCError {
        let (code, reason) = Self.wireForms[self.code] ?? (.internalError, ErrorReason.internalError)
        return RPCError(
            code: code,
            message: self.message,
            reason: reason,
            field: self.field,
            extra: self.details.mapValues { .int($0) }
        )
    }

    /// Each domain code's JSON-RPC code and reason, read from the error catalog (`GuildError.Code` is generated
    /// from the same entries, so every case has one; `ErrorCatalogTests` checks it).
    static let wireForms: [GuildError.Code: (ErrorCode, String)] = Dictionary(
        uniqueKeysWithValues: ErrorReason.sections.flatMap(\.entries).compactMap { entry in
            entry.domainCase.flatMap(GuildError.Code.init(rawValue:)).map { ($0, (entry.code, entry.reason)) }
        }
    )
}
