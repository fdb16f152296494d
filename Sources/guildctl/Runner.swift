import ArgumentParser
import Foundation
import GuildClient
import GuildProtocol

/// Runs one command's calls on a fresh connection and turns failures into messages and exit codes.
enum Runner {
    /// Connects, authenticates (unless `session` is false: for the calls that open a session) with the run's
    /// token or stored login if any, runs `body`, and always closes the connection. Errors are reported on
    /// stderr and rethrown as the matching `ExitCode` (see ``GuildExitCode``).
    static func run<T: Sendable>(
        _ options: GlobalOptions,
        session: Bool = true,
        _ body: (GuildClient) async throws -> T
    ) async throws -> T {
        let client: GuildClient
        do {
            client = try await GuildClient.connect(path: options.socketPath)
        } catch {
            throw Self.report(error, json: options.json)
        }
        do {
            if session { try await Self.authenticate(client, options) }
            let result = try await body(client)
            await client.close()
            return result
        } catch {
            await client.close()
            throw Self.report(error, json: options.json)
        }
    }

    /// Binds the connection to the run's session: the given token (`--token`, `GUILD_TOKEN`), else the login
    /// stored for the profile and socket. An expired stored access token is exchanged once for a new one with
    /// its refresh token, and the new tokens are stored; a refused refresh token forgets the login.
    static func authenticate(_ client: GuildClient, _ options: GlobalOptions) async throws {
        if let token = options.explicitToken {
            _ = try await client.call(SessionMethods.Authenticate.self, .init(accessToken: token))
            return
        }
        let store = CredentialStore()
        let profile = options.profileName
        let socket = options.socketPath
        guard let login = try store.login(profile: profile, socket: socket) else { return }
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        if !login.expired(now: now) || login.refreshToken == nil {
            do {
                _ = try await client.call(SessionMethods.Authenticate.self, .init(accessToken: login.accessToken))
                return
            } catch let error as RPCError where error.code == .invalidToken && login.refreshToken != nil {
                // Expired (or revoked) on the daemon's clock: try the refresh token once.
            }
        }
        guard let refreshToken = login.refreshToken else { return }
        let renewed: AuthResult
        do {
            renewed = try await client.call(UserMethods.Refresh.self, .init(refreshToken: refreshToken))
        } catch let error as RPCError where error.code == .invalidRefreshToken {
            try store.store(nil, profile: profile, socket: socket)
            throw LoginExpired(profile: profile)
        }
        try store.store(StoredLogin(renewed), profile: profile, socket: socket)
        _ = try await client.call(SessionMethods.Authenticate.self, .init(accessToken: renewed.accessToken))
    }

    /// The access token of the run's session after ``authenticate(_:_:)`` (refreshed if it had expired).
    static func sessionToken(_ options: GlobalOptions) async throws -> String? {
        try await Self.run(options) { _ in }
        if let token = options.explicitToken { return token }
        return try CredentialStore().login(profile: options.profileName, socket: options.socketPath)?.accessToken
    }

    /// A stored login whose refresh token the daemon no longer accepts.
    struct LoginExpired: Error, CustomStringConvertible {
        let profile: String
        var description: String {
            "the stored login of profile \(self.profile) has expired; log in again with guildctl login"
        }
    }

    /// Runs one typed call and prints its result: what most commands do. `session: false` for the calls that
    /// open a session (register, login, refresh): they use neither the run's token nor the stored login.
    static func call<M: RPCMethod>(_ method: M.Type, _ params: M.Params, _ options: GlobalOptions, session: Bool = true) async throws {
        let result = try await Self.run(options, session: session) { client in try await client.call(M.self, params) }
        try Output.printResult(result, json: options.json, showTokens: options.showToken)
    }

    /// Runs one typed call that takes no params and prints its result.
    static func call<M: RPCMethod>(_ method: M.Type, _ options: GlobalOptions) async throws where M.Params == NoParams {
        let result = try await Self.run(options) { client in try await client.call(M.self) }
        try Output.printResult(result, json: options.json, showTokens: options.showToken)
    }

    /// Prints an error to stderr and returns what to throw: an `ExitCode`, or the error itself when
    /// ArgumentParser should handle it (usage errors, exit requests).
    static func report(_ error: any Error, json: Bool) -> any Error {
        switch error {
        case let error as RPCError:
            Output.printError("error: " + Self.describe(error))
            if json, let text = try? Output.compact(error) {
                Output.printError(text)
            }
            if error.code == .unauthorized {
                Output.printError("hint: log in with guildctl login, or give an access token with --token or GUILD_TOKEN.")
            }
            return GuildExitCode.forServerError(error.code).exitCode
        case let error as GuildClientError:
            Output.printError("error: \(error)")
            if case .connectFailed = error {
                Output.printError("hint: is guildd running? Set the socket with --socket or GUILD_SOCKET.")
            }
            return GuildExitCode.unavailable.exitCode
        case is ExitCode, is ValidationError, is CleanExit:
            return error
        case let error as LoginExpired:
            Output.printError("error: \(error)")
            return GuildExitCode.unauthorized.exitCode
        default:
            Output.printError("error: \(error)")
            return GuildExitCode.applicationError.exitCode
        }
    }

    /// `<message> (code <code>, reason <REASON>[, field <field>])`.
    static func describe(_ error: RPCError) -> String {
        var text = "\(error.message) (code \(error.code.rawValue)"
        if let reason = error.reason { text += ", reason \(reason)" }
        if let field = error.field { text += ", field \(field)" }
        return text + ")"
    }
}
