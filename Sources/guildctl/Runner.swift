import ArgumentParser
import GuildClient
import GuildProtocol

/// Runs one command's calls on a fresh connection and turns failures into messages and exit codes.
enum Runner {
    /// Connects, authenticates with the global token if any, runs `body`, and always closes the connection.
    /// Errors are reported on stderr and rethrown as the matching `ExitCode` (see ``GuildExitCode``).
    static func run<T: Sendable>(
        _ options: GlobalOptions,
        _ body: (GuildClient) async throws -> T
    ) async throws -> T {
        let client: GuildClient
        do {
            client = try await GuildClient.connect(path: options.socketPath)
        } catch {
            throw Self.report(error, json: options.json)
        }
        do {
            if let token = options.accessToken {
                _ = try await client.call(SessionMethods.Authenticate.self, .init(accessToken: token))
            }
            let result = try await body(client)
            await client.close()
            return result
        } catch {
            await client.close()
            throw Self.report(error, json: options.json)
        }
    }

    /// Runs one typed call and prints its result: what most commands do.
    static func call<M: RPCMethod>(_ method: M.Type, _ params: M.Params, _ options: GlobalOptions) async throws {
        let result = try await Self.run(options) { client in try await client.call(M.self, params) }
        try Output.printResult(result, json: options.json)
    }

    /// Runs one typed call that takes no params and prints its result.
    static func call<M: RPCMethod>(_ method: M.Type, _ options: GlobalOptions) async throws where M.Params == NoParams {
        let result = try await Self.run(options) { client in try await client.call(M.self) }
        try Output.printResult(result, json: options.json)
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
                Output.printError("hint: give an access token with --token or GUILD_TOKEN.")
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
