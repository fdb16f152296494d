import ArgumentParser
import GuildClient
import GuildProtocol

extension UserCommand {
    /// `user member-of`: `user.memberOfGroups`.
    struct MemberOf: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "member-of",
            abstract: "List the groups a user is a member of (yours, from --token, when --user-id is omitted)."
        )

        @Option(name: .customLong("user-id"), help: ArgumentHelp("The user's id.", valueName: "id"))
        var userID: String?

        @OptionGroup var options: GlobalOptions

        func run() async throws {
            let result = try await Runner.run(self.options) { client in
                try await client.call(UserMethods.MemberOfGroups.self, .init(userID: self.userID))
            }
            try GroupList.print(result, json: self.options.json)
        }
    }

    /// `user owner-of`: `user.ownerOfGroups`.
    struct OwnerOf: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "owner-of",
            abstract: "List the groups a user owns (yours, from --token, when --user-id is omitted)."
        )

        @Option(name: .customLong("user-id"), help: ArgumentHelp("The user's id.", valueName: "id"))
        var userID: String?

        @OptionGroup var options: GlobalOptions

        func run() async throws {
            let result = try await Runner.run(self.options) { client in
                try await client.call(UserMethods.OwnerOfGroups.self, .init(userID: self.userID))
            }
            try GroupList.print(result, json: self.options.json)
        }
    }
}

/// Printing a list of groups.
enum GroupList {
    /// `--json`: the result object; else one line per group, `groupID  name  (owner USER, N members)`.
    static func print(_ result: UserMethods.MemberOfGroups.Result, json: Bool) throws {
        if json {
            try Output.printResult(result, json: true)
            return
        }
        let idWidth = result.groups.map(\.groupID.count).max() ?? 0
        let nameWidth = result.groups.map(\.name.count).max() ?? 0
        for group in result.groups {
            let owner = group.owner.map { "owner \($0)" } ?? "no owner"
            let members = group.memberCount == 1 ? "1 member" : "\(group.memberCount) members"
            Swift.print(
                Output.padded(group.groupID, idWidth) + "  " + Output.padded(group.name, nameWidth) + "  (\(owner), \(members))"
            )
        }
    }
}
