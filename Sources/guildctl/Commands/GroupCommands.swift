import ArgumentParser
import GuildClient
import GuildProtocol

/// `guildctl group ...`: groups, their members and owners.
struct GroupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "group",
        abstract: "Create, inspect and change groups, their members and owners.",
        subcommands: [
            Create.self,
            Get.self,
            Rename.self,
            Delete.self,
            AddMembers.self,
            RemoveMembers.self,
            Members.self,
            Owner.self,
            ChangeOwner.self,
        ] + imSubcommands
    )
}

/// The group a command acts on.
struct GroupIDOption: ParsableArguments {
    @Option(name: .customLong("group-id"), help: ArgumentHelp("The group's id.", valueName: "id"))
    var groupID: String
}

extension GroupCommand {
    /// `group create`: `group.create`.
    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "create",
            abstract: "Create a group; you become its owner and first member.",
            discussion: """
                Unknown --member users do not fail the call: they are listed in notFoundUsers. \
                An admin may name another --owner.
                """
        )

        @Option(help: ArgumentHelp("The group's name.", valueName: "name"))
        var name: String

        @Option(
            name: .customLong("group-id"),
            help: ArgumentHelp("The group's id (default: one is generated).", valueName: "id")
        )
        var groupID: String?

        @Option(help: ArgumentHelp("The group type (default: Basic).", valueName: "type"))
        var type: String?

        @Option(
            name: .customLong("member"),
            help: ArgumentHelp("A user to add as a member (repeatable).", valueName: "user-id")
        )
        var members: [String] = []

        @Option(
            name: .customLong("admin"),
            help: ArgumentHelp("A user to add as an admin (repeatable; IM types with admins).", valueName: "user-id")
        )
        var admins: [String] = []

        @Option(help: ArgumentHelp("The owner's user id (admins only; default: you).", valueName: "user-id"))
        var owner: String?

        @Option(help: ArgumentHelp("The introduction (IM types).", valueName: "text"))
        var introduction: String?

        @Option(help: ArgumentHelp("The notice (IM types).", valueName: "text"))
        var notification: String?

        @Option(name: .customLong("add-opt"), help: ArgumentHelp("How others join: FORBID, AUTH or ANY.", valueName: "opt"))
        var addOpt: String?

        @OptionGroup var options: GlobalOptions

        func run() async throws {
            let params = GroupMethods.Create.Params(
                name: self.name,
                groupID: self.groupID,
                type: try wireChoice(self.type, "--type"),
                members: self.members.isEmpty && self.admins.isEmpty
                    ? nil : self.admins.map { GroupMethods.MemberSpec(userID: $0, role: .admin) } + self.members.map { .init(userID: $0) },
                owner: self.owner,
                introduction: self.introduction,
                notification: self.notification,
                addOpt: try wireChoice(self.addOpt, "--add-opt")
            )
            try await Runner.call(GroupMethods.Create.self, params, self.options)
        }
    }

    /// `group get`: `group.get`.
    struct Get: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "get",
            abstract: "Show a group: name, type, owner, member count and times."
        )

        @OptionGroup var group: GroupIDOption
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            try await Runner.call(GroupMethods.Get.self, .init(groupID: self.group.groupID), self.options)
        }
    }

    /// `group rename`: `group.rename`.
    struct Rename: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rename",
            abstract: "Rename a group (its owner, or an admin)."
        )

        @OptionGroup var group: GroupIDOption

        @Option(help: ArgumentHelp("The new name.", valueName: "name"))
        var name: String

        @OptionGroup var options: GlobalOptions

        func run() async throws {
            let params = GroupMethods.Rename.Params(groupID: self.group.groupID, name: self.name)
            try await Runner.call(GroupMethods.Rename.self, params, self.options)
        }
    }

    /// `group delete`: `group.delete`.
    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete",
            abstract: "Delete a group (its owner, or an admin); its members are told it was dismissed."
        )

        @OptionGroup var group: GroupIDOption
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            try await Runner.call(GroupMethods.Delete.self, .init(groupID: self.group.groupID), self.options)
        }
    }

    /// `group add-members`: `group.addMembers`.
    struct AddMembers: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add-members",
            abstract: "Add users to a group (its owner, or an admin); prints one result per user.",
            discussion: "Adding an existing member succeeds. A user that cannot be added is reported as FAIL with a reason."
        )

        @OptionGroup var group: GroupIDOption
        @OptionGroup var users: UserIDsOption
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            let params = GroupMethods.MembersChange(groupID: self.group.groupID, userIDs: self.users.userIDs)
            let result = try await Runner.run(self.options) { client in
                try await client.call(GroupMethods.AddMembers.self, params)
            }
            try MemberResults.print(result, json: self.options.json)
        }
    }

    /// `group remove-members`: `group.removeMembers`.
    struct RemoveMembers: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove-members",
            abstract: "Remove users from a group; prints one result per user.",
            discussion: """
                The owner or an admin may remove anyone but the owner; a member may remove themself. \
                Removing a non-member is reported as FAIL for that user.
                """
        )

        @OptionGroup var group: GroupIDOption
        @OptionGroup var users: UserIDsOption
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            let params = GroupMethods.MembersChange(groupID: self.group.groupID, userIDs: self.users.userIDs)
            let result = try await Runner.run(self.options) { client in
                try await client.call(GroupMethods.RemoveMembers.self, params)
            }
            try MemberResults.print(result, json: self.options.json)
        }
    }

    /// `group members`: `group.members`, one page or (`--all`) every page.
    struct Members: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "members",
            abstract: "List a group's members in join order, one page or (--all) all of them.",
            discussion: """
                Without --all one page is printed; when there are more, the next cursor is shown on stderr \
                (and as nextCursor with --json): pass it back with --cursor. With --all every page is fetched \
                and nextCursor is 0.
                """
        )

        @OptionGroup var group: GroupIDOption

        @Option(help: ArgumentHelp("Where to start: a nextCursor from the previous page (default: 0).", valueName: "n"))
        var cursor: Int64?

        @Option(help: ArgumentHelp("At most this many members per page (default: 100).", valueName: "n"))
        var limit: Int?

        @Flag(help: "Fetch every page, following nextCursor until it is 0.")
        var all = false

        @OptionGroup var options: GlobalOptions

        func validate() throws {
            if let cursor = self.cursor, cursor < 0 { throw ValidationError("--cursor must not be negative.") }
            if let limit = self.limit, limit < 1 { throw ValidationError("--limit must be at least 1.") }
        }

        func run() async throws {
            let groupID = self.group.groupID
            let result = try await Runner.run(self.options) { client in
                var params = GroupMethods.Members.Params(groupID: groupID, cursor: self.cursor, limit: self.limit)
                var page = try await client.call(GroupMethods.Members.self, params)
                guard self.all else { return page }
                var members = page.members
                while page.nextCursor != 0 {
                    params.cursor = page.nextCursor
                    page = try await client.call(GroupMethods.Members.self, params)
                    members += page.members
                }
                return GroupMethods.Members.Result(members: members, nextCursor: 0)
            }
            if self.options.json {
                try Output.printResult(result, json: true)
                return
            }
            let rows = result.members.map { [$0.userID, $0.role] }
            for line in Output.table(headers: ["USER ID", "ROLE"], rows: rows) { print(line) }
            if result.nextCursor != 0 {
                Output.printError("more members: --cursor \(result.nextCursor) (or --all)")
            }
        }
    }

    /// `group owner`: `group.owner`.
    struct Owner: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "owner",
            abstract: "Show a group's owner (null, or \"(none)\" for humans, when it has none)."
        )

        @OptionGroup var group: GroupIDOption
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            let result = try await Runner.run(self.options) { client in
                try await client.call(GroupMethods.Owner.self, .init(groupID: self.group.groupID))
            }
            if self.options.json {
                try Output.printResult(result, json: true)
            } else {
                print(result.owner ?? "(none)")
            }
        }
    }

    /// `group change-owner`: `group.changeOwner`.
    struct ChangeOwner: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "change-owner",
            abstract: "Make another user a group's owner (the owner, or an admin).",
            discussion: "The new owner becomes a member if they are not one; the old owner stays a member."
        )

        @OptionGroup var group: GroupIDOption

        @Option(name: .customLong("user-id"), help: ArgumentHelp("The new owner's user id.", valueName: "id"))
        var userID: String

        @OptionGroup var options: GlobalOptions

        func run() async throws {
            let params = GroupMethods.ChangeOwner.Params(groupID: self.group.groupID, userID: self.userID)
            try await Runner.call(GroupMethods.ChangeOwner.self, params, self.options)
        }
    }
}

/// The users a membership change names.
struct UserIDsOption: ParsableArguments {
    @Option(
        name: .customLong("user"),
        help: ArgumentHelp("A user id (repeatable; at least one).", valueName: "user-id")
    )
    var userIDs: [String] = []

    func validate() throws {
        if self.userIDs.isEmpty { throw ValidationError("Missing expected argument '--user <user-id>'.") }
    }
}

/// Printing the per-user results of `group add-members` and `group remove-members`.
enum MemberResults {
    /// `--json`: the result object; else a table: user, result, reason.
    static func print(_ result: GroupMethods.MembersChangeResult, json: Bool) throws {
        if json {
            try Output.printResult(result, json: true)
            return
        }
        let rows = result.results.map { [$0.userID, $0.result, $0.reason ?? ""] }
        for line in Output.table(headers: ["USER ID", "RESULT", "REASON"], rows: rows) { Swift.print(line) }
    }
}
