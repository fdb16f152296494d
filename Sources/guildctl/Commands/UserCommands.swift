import ArgumentParser
import GuildProtocol

/// `guildctl user ...`: registration, login, tokens and profiles.
struct UserCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "user",
        abstract: "Register, log in, and manage users; list their groups.",
        subcommands: [
            Register.self,
            RegisterPseudo.self,
            Login.self,
            Refresh.self,
            PutIdentity.self,
            ChangePassword.self,
            Get.self,
            Update.self,
            Delete.self,
            MemberOf.self,
            OwnerOf.self,
        ]
    )
}

/// A login identity: a login name, an email address or a phone number.
struct IdentityOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The login name.", valueName: "username"))
    var username: String?

    @Option(help: ArgumentHelp("The email address.", valueName: "email"))
    var email: String?

    @Option(help: ArgumentHelp("The phone number.", valueName: "phone"))
    var phone: String?

    /// How many of the three are given.
    var count: Int {
        [self.username, self.email, self.phone].compactMap { $0 }.count
    }

    /// The params of `user.login` and `user.putIdentity` (one type) with this identity.
    func params(password: String) -> UserMethods.Login.Params {
        .init(username: self.username, email: self.email, phone: self.phone, password: password)
    }
}

/// A password: `--password`, else one line of stdin with `--password-stdin`, else `GUILD_PASSWORD`, else a
/// prompt without echo when stdin is a terminal.
struct PasswordOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The password (default: $GUILD_PASSWORD, else a prompt on a terminal).", valueName: "password"))
    var password: String?

    @Flag(help: "Read the password from the first line of stdin (for scripts).")
    var passwordStdin = false

    func validate() throws {
        if self.password != nil, self.passwordStdin {
            throw ValidationError("Give --password or --password-stdin, not both.")
        }
    }

    /// The password to send; a usage error when there is none and no terminal to ask on.
    func resolved(prompt: String = "Password: ") throws -> String {
        if let password = self.password { return password }
        if self.passwordStdin {
            guard let line = readLine(strippingNewline: true), !line.isEmpty else {
                throw ValidationError("--password-stdin: stdin gave no password.")
            }
            return line
        }
        if let password = Environment.value("GUILD_PASSWORD") { return password }
        if let password = Terminal.readSecret(prompt: prompt) { return password }
        throw ValidationError("Missing expected argument '--password <password>' (or --password-stdin, or set GUILD_PASSWORD).")
    }
}
