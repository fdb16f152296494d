import GuildCore

/// The domain error code `body` throws; nil when it succeeds or throws something else.
public func guildErrorCode(_ body: () async throws -> Void) async -> GuildError.Code? {
    do {
        try await body()
        return nil
    } catch let error as GuildError {
        return error.code
    } catch {
        return nil
    }
}
