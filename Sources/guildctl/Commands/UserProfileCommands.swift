import ArgumentParser
import GuildClient
import GuildJSON
import GuildProtocol

extension UserCommand {
    /// `user get`: `user.get`.
    struct Get: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "get",
            abstract: "Show a user's profile (your own, from --token, when --user-id is omitted)."
        )

        @Option(name: .customLong("user-id"), help: ArgumentHelp("The user's id.", valueName: "id"))
        var userID: String?

        @OptionGroup var options: GlobalOptions

        func run() async throws {
            try await Runner.call(UserMethods.Get.self, .init(userID: self.userID), self.options)
        }
    }

    /// `user update`: `user.update`.
    struct Update: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "update",
            abstract: "Change a profile's display name, email, phone or custom fields.",
            discussion: "Fields are merged; a null value removes that field, e.g. --fields '{\"age\": null}'."
        )

        @Option(
            name: .customLong("user-id"),
            help: ArgumentHelp("The user's id (admins only; default: your own).", valueName: "id")
        )
        var userID: String?

        @Option(help: ArgumentHelp("The new display name.", valueName: "name"))
        var displayName: String?

        @Option(help: ArgumentHelp("The new email address.", valueName: "email"))
        var email: String?

        @Option(help: ArgumentHelp("The new phone number.", valueName: "phone"))
        var phone: String?

        @Option(
            help: ArgumentHelp("Custom fields to merge, as a JSON object.", valueName: "json"),
            transform: JSONArgument.object
        )
        var fields: [String: JSONValue]?

        @OptionGroup var options: GlobalOptions

        func run() async throws {
            let params = UserMethods.Update.Params(
                userID: self.userID,
                displayName: self.displayName,
                email: self.email,
                phone: self.phone,
                fields: self.fields
            )
            try await Runner.call(UserMethods.Update.self, params, self.options)
        }
    }

    /// `user delete`: `user.delete`.
    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete",
            abstract: "Delete a user and every token they hold (yourself, or anyone as admin)."
        )

        @Option(
            name: .customLong("user-id"),
            help: ArgumentHelp("The user's id (default: your own).", valueName: "id")
        )
        var userID: String?

        @OptionGroup var options: GlobalOptions

        func run() async throws {
            try await Runner.call(UserMethods.Delete.self, .init(userID: self.userID), self.options)
        }
    }
}
