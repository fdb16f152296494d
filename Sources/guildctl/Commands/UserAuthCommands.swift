import ArgumentParser
import GuildClient
import GuildJSON
import GuildProtocol

extension UserCommand {
    /// `user register`: `user.register`.
    struct Register: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "register",
            abstract: "Create a user with a login name, email or phone and a password (guildctl register also keeps the session).",
            discussion: "The password comes from --password, --password-stdin, GUILD_PASSWORD, or a prompt without echo."
        )

        @OptionGroup var registration: RegistrationOptions
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            try await Runner.call(UserMethods.Register.self, try self.registration.params(), self.options, session: false)
        }
    }

    /// `user register-pseudo`: `user.registerPseudo`.
    struct RegisterPseudo: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "register-pseudo",
            abstract: "Create a pseudo user (no login identity; its token never expires)."
        )

        @Option(help: ArgumentHelp("The display name (at most 50 characters).", valueName: "name"))
        var displayName: String?

        @Option(
            help: ArgumentHelp("Custom fields as a JSON object.", valueName: "json"),
            transform: JSONArgument.object
        )
        var fields: [String: JSONValue]?

        @OptionGroup var options: GlobalOptions

        func run() async throws {
            let params = UserMethods.RegisterPseudo.Params(displayName: self.displayName, fields: self.fields)
            try await Runner.call(UserMethods.RegisterPseudo.self, params, self.options, session: false)
        }
    }

    /// `user login`: `user.login`.
    struct Login: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "login",
            abstract: "Log in with one of --username, --email or --phone and a password (guildctl login also keeps the session).",
            discussion: "The password comes from --password, else from the GUILD_PASSWORD environment variable."
        )

        @OptionGroup var identity: IdentityOptions
        @OptionGroup var password: PasswordOptions
        @OptionGroup var options: GlobalOptions

        func validate() throws {
            guard self.identity.count == 1 else {
                throw ValidationError("Give exactly one of --username, --email or --phone.")
            }
        }

        func run() async throws {
            let params = self.identity.params(password: try self.password.resolved())
            try await Runner.call(UserMethods.Login.self, params, self.options, session: false)
        }
    }

    /// `user refresh`: `user.refresh`.
    struct Refresh: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "refresh",
            abstract: "Exchange a refresh token (single use) for new access and refresh tokens."
        )

        @Option(help: ArgumentHelp("The refresh token.", valueName: "token"))
        var refreshToken: String

        @OptionGroup var options: GlobalOptions

        func run() async throws {
            try await Runner.call(UserMethods.Refresh.self, .init(refreshToken: self.refreshToken), self.options, session: false)
        }
    }

    /// `user put-identity`: `user.putIdentity`.
    struct PutIdentity: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "put-identity",
            abstract: "Give the pseudo user of --token a login identity and a password.",
            discussion: "The password comes from --password, else from the GUILD_PASSWORD environment variable."
        )

        @OptionGroup var identity: IdentityOptions
        @OptionGroup var password: PasswordOptions
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            let params = self.identity.params(password: try self.password.resolved())
            try await Runner.call(UserMethods.PutIdentity.self, params, self.options)
        }
    }

    /// `user change-password`: `user.changePassword`.
    struct ChangePassword: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "change-password",
            abstract: "Change the password of the user of --token; every token they hold is revoked."
        )

        @Option(help: ArgumentHelp("The current password.", valueName: "password"))
        var oldPassword: String

        @Option(help: ArgumentHelp("The new password.", valueName: "password"))
        var newPassword: String

        @OptionGroup var options: GlobalOptions

        func run() async throws {
            let params = UserMethods.ChangePassword.Params(oldPassword: self.oldPassword, newPassword: self.newPassword)
            try await Runner.call(UserMethods.ChangePassword.self, params, self.options)
        }
    }
}

/// What registering takes: a login identity, a password, and optionally a display name and custom fields.
struct RegistrationOptions: ParsableArguments {
    @OptionGroup var identity: IdentityOptions
    @OptionGroup var password: PasswordOptions

    @Option(help: ArgumentHelp("The display name (at most 50 characters).", valueName: "name"))
    var displayName: String?

    @Option(help: ArgumentHelp("Custom fields as a JSON object.", valueName: "json"), transform: JSONArgument.object)
    var fields: [String: JSONValue]?

    /// The params of `user.register` (reading the password as ``PasswordOptions`` says).
    func params() throws -> UserMethods.Register.Params {
        UserMethods.Register.Params(
            username: self.identity.username,
            email: self.identity.email,
            phone: self.identity.phone,
            password: try self.password.resolved(),
            displayName: self.displayName,
            fields: self.fields
        )
    }
}
