import ArgumentParser
import Foundation
import GuildClient
import GuildJSON
import GuildProtocol

/// Keeping a login for later commands, and telling the person what happened.
enum Logins {
    /// Stores `auth` for the run's profile and socket, then prints it: the full result with `--json`, else who
    /// is logged in where (tokens only with `--show-token`).
    static func keep(_ auth: AuthResult, _ options: GlobalOptions, verb: String) throws {
        try CredentialStore().store(StoredLogin(auth), profile: options.profileName, socket: options.socketPath)
        if options.json {
            try Output.printResult(auth, json: true)
            return
        }
        let name = auth.user.username ?? auth.user.displayName ?? "a pseudo user"
        print("\(verb) as \(name) (user \(auth.user.userID)); profile \(options.profileName) on \(options.socketPath).")
        var rows = [("expires", auth.expiresAt.map { Output.relativeTime(milliseconds: $0, now: Date()) } ?? "never")]
        if options.showToken {
            rows.append(("access token", auth.accessToken))
            rows.append(("refresh token", auth.refreshToken ?? "-"))
        }
        for line in Output.block(rows) { print(line) }
    }
}

/// `guildctl login`: logs in and keeps the tokens for the profile.
struct LoginCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "login",
        abstract: "Log in and keep the session for later commands (per --profile and socket).",
        discussion: """
            The password comes from --password, --password-stdin, GUILD_PASSWORD, or a prompt without echo \
            when stdin is a terminal. With --pseudo a new pseudo user (no login identity, a token that never \
            expires) is created and kept instead.

            The tokens are kept in $XDG_CONFIG_HOME/guild/credentials.json (mode 0600), one login per profile \
            and socket; later commands authenticate with it when neither --token nor GUILD_TOKEN is given, and \
            exchange an expired access token for a new one once. Tokens are printed only with --show-token \
            or --json.
            """
    )

    @OptionGroup var identity: IdentityOptions
    @OptionGroup var password: PasswordOptions

    @Flag(help: "Create a pseudo user and keep its session instead of logging in.")
    var pseudo = false

    @Option(help: ArgumentHelp("The pseudo user's display name (with --pseudo).", valueName: "name"))
    var displayName: String?

    @OptionGroup var options: GlobalOptions

    func validate() throws {
        if self.pseudo {
            guard self.identity.count == 0 else { throw ValidationError("--pseudo takes no --username, --email or --phone.") }
        } else {
            guard self.identity.count == 1 else { throw ValidationError("Give exactly one of --username, --email or --phone (or --pseudo).") }
            guard self.displayName == nil else { throw ValidationError("--display-name goes with --pseudo.") }
        }
    }

    func run() async throws {
        if self.pseudo {
            let params = UserMethods.RegisterPseudo.Params(displayName: self.displayName, fields: nil)
            let auth = try await Runner.run(self.options, session: false) { client in
                try await client.call(UserMethods.RegisterPseudo.self, params)
            }
            try Logins.keep(auth, self.options, verb: "Logged in")
            return
        }
        let params = self.identity.params(password: try self.password.resolved())
        let auth = try await Runner.run(self.options, session: false) { client in
            try await client.call(UserMethods.Login.self, params)
        }
        try Logins.keep(auth, self.options, verb: "Logged in")
    }
}

/// `guildctl register`: creates a user and keeps its session.
struct RegisterCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "register",
        abstract: "Create a user and keep their session for later commands (see login).",
        discussion: "The password comes from --password, --password-stdin, GUILD_PASSWORD, or a prompt without echo."
    )

    @OptionGroup var registration: RegistrationOptions
    @OptionGroup var options: GlobalOptions

    func run() async throws {
        let params = try self.registration.params()
        let auth = try await Runner.run(self.options, session: false) { client in
            try await client.call(UserMethods.Register.self, params)
        }
        try Logins.keep(auth, self.options, verb: "Registered and logged in")
    }
}

/// `guildctl logout`: revokes the stored session on the daemon and forgets it.
struct LogoutCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "logout",
        abstract: "Revoke the profile's session on the daemon (access and refresh token) and forget it.",
        discussion: """
            A session the daemon no longer knows is forgotten all the same. A thing's token kept by \
            `thing onboard --save` is only forgotten: it stays valid until the thing is deleted.
            """
    )

    @OptionGroup var options: GlobalOptions

    func run() async throws {
        let store = CredentialStore()
        let profile = self.options.profileName
        let socket = self.options.socketPath
        guard let login = try store.login(profile: profile, socket: socket) else {
            Output.printError("error: profile \(profile) has no login on \(socket)")
            throw GuildExitCode.unauthorized.exitCode
        }
        if let thingID = login.thingID {
            // A thing's token cannot be revoked (it ends with the thing): only forget it.
            try store.store(nil, profile: profile, socket: socket)
            if self.options.json {
                try Output.printResult(["loggedOut": JSONValue.bool(true), "revoked": .bool(false)], json: true)
            } else {
                print("Forgot thing \(login.name ?? thingID) (profile \(profile)); its token stays valid until the thing is deleted.")
            }
            return
        }
        let revoked = try await Runner.run(self.options, session: false) { client in
            do {
                _ = try await client.call(SessionMethods.Authenticate.self, .init(accessToken: login.accessToken))
                _ = try await client.call(SessionMethods.Logout.self)
                return true
            } catch let error as RPCError where error.code == .invalidToken {
                return false  // already expired or revoked: nothing left to revoke
            }
        }
        try store.store(nil, profile: profile, socket: socket)
        if self.options.json {
            try Output.printResult(["loggedOut": JSONValue.bool(true), "revoked": .bool(revoked)], json: true)
        } else {
            print("Logged out \(login.name ?? login.userID) (profile \(profile)).")
        }
    }
}
