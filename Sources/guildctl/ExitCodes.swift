import ArgumentParser
import GuildProtocol

/// The exit statuses of `guildctl`. They are also listed in the root command's help.
enum GuildExitCode: Int32, CaseIterable, Sendable {
    /// The call succeeded.
    case success = 0
    /// The daemon answered with an application error (codes >= 1000) or any other error not listed below.
    case applicationError = 1
    /// The daemon rejected the request or its params (-32602, -32600, -32700).
    case invalidRequest = 2
    /// The daemon does not know the method (-32601).
    case methodNotFound = 3
    /// No session, an invalid token or wrong credentials (40101-40104).
    case unauthorized = 4
    /// The session may not do this (40301; 10007 in IM groups).
    case permissionDenied = 5
    /// The command line was wrong, including invalid JSON given as an argument (EX_USAGE).
    case usage = 64
    /// The daemon could not be reached, or the connection was lost (EX_UNAVAILABLE).
    case unavailable = 69

    /// The status for an error the daemon answered with.
    static func forServerError(_ code: ErrorCode) -> GuildExitCode {
        switch code {
        case .parseError, .invalidRequest, .invalidParams: .invalidRequest
        case .methodNotFound: .methodNotFound
        case .unauthorized, .invalidCredentials, .invalidToken, .invalidRefreshToken: .unauthorized
        case .permissionDenied, .imNotAllowed: .permissionDenied
        default: .applicationError
        }
    }

    /// A one-line description, for the help text.
    var summary: String {
        switch self {
        case .success: "success"
        case .applicationError: "application error from the daemon (codes >= 1000), or any other error"
        case .invalidRequest: "invalid params or request (-32602, -32600, -32700)"
        case .methodNotFound: "method not found (-32601)"
        case .unauthorized: "unauthorized, invalid token or invalid credentials (40101-40104)"
        case .permissionDenied: "permission denied (40301), or not allowed in this IM group (10007)"
        case .usage: "usage error, including invalid JSON on the command line"
        case .unavailable: "cannot connect to guildd, or the connection was lost"
        }
    }

    /// The `ExitCode` to throw.
    var exitCode: ExitCode { ExitCode(self.rawValue) }

    /// The table of statuses, one per line, for the help text.
    static var helpTable: String {
        Self.allCases.map { code in
            let number = String(code.rawValue)
            return String(repeating: " ", count: max(0, 4 - number.count)) + number + "  " + code.summary
        }.joined(separator: "\n")
    }
}
