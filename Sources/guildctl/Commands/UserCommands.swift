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

/// A password from `--password`, else from the `GUILD_PASSWORD` environment variable.
struct PasswordOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The password (default: $GUILD_PASSWORD).", valueName: "password"))
    var password: String?

    func validate() throws {
        if self.password == nil, Environment.value("GUILD_PASSWORD") == nil {
            throw ValidationError("Missing expected argument '--password <password>' (or set GUILD_PASSWORD).")
        }
    }

    /// The password to send.
    var resolved: String {
        self.password ?? Environment.value("GUILD_PASSWORD") ?? ""
    }
}
