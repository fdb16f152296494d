import Foundation
import GRDB
import GuildCore

/// A row of the `token` table: the SHA-256 of an access or refresh token, never the token itself.
struct TokenRecord: Codable, Sendable {
    enum Kind: String, Codable, Sendable {
        case access
        case refresh
    }

    var hash: Data
    var userID: String
    var kind: Kind
    /// The session the token belongs to; its tokens are revoked together.
    var family: String
    var expiresAt: Int64?
    var createdAt: Int64

    static func records(for session: IssuedSession, userID: String, now: Int64) -> [TokenRecord] {
        var records = [
            TokenRecord(
                hash: Data(session.accessToken.hash),
                userID: userID,
                kind: .access,
                family: session.family,
                expiresAt: session.expiresAt,
                createdAt: now
            )
        ]
        if let refresh = session.refreshToken {
            records.append(
                TokenRecord(
                    hash: Data(refresh.hash),
                    userID: userID,
                    kind: .refresh,
                    family: session.family,
                    expiresAt: nil,
                    createdAt: now
                )
            )
        }
        return records
    }
}

extension TokenRecord: FetchableRecord, PersistableRecord {
    static let databaseTableName = "token"

    enum Columns {
        static let hash = Column(CodingKeys.hash)
        static let userID = Column(CodingKeys.userID)
        static let kind = Column(CodingKeys.kind)
        static let family = Column(CodingKeys.family)
    }
}
