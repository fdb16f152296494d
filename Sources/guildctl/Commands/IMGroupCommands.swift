import ArgumentParser
import Foundation
import GuildClient
import GuildJSON
import GuildProtocol

/// The user a command acts on.
struct UserIDOption: ParsableArguments {
    @Option(name: .customLong("user"), help: ArgumentHelp("The user's id.", valueName: "user-id"))
    var userID: String
}

/// `guildctl group ...` for the IM group methods (Tencent's group management); see protocol/im-groups.md.
extension GroupCommand {
    static let imSubcommands: [any ParsableCommand.Type] =
        [
            Types.self, Join.self, Applications.self, Accept.self, Refuse.self, Quit.self, Dismiss.self, Joined.self, Info.self,
            SetInfo.self, ReceiveOption.self, MemberList.self, Mute.self, SetRole.self, Transfer.self, Attributes.self,
            SetAttributes.self,
        ] + messageSubcommands

    /// `group types`: `group.types`.
    struct Types: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show the policy table: what each group type allows, and to whom."
        )
        @OptionGroup var options: GlobalOptions
        func run() async throws {
            let result = try await Runner.run(self.options) { client in try await client.call(GroupMethods.Types.self) }
            if self.options.json {
                try Output.printResult(result, json: true)
                return
            }
            // One row a rule (in the declaration's order), one column a type.
            guard let first = result.types.first else { return print("(none)") }
            let rules = Mirror(reflecting: first).children.compactMap(\.label).filter { $0 != "type" }
            let columns = try result.types.map { try Output.tree($0).objectValue ?? [:] }
            let rows = rules.map { rule in
                [rule] + columns.map { Output.scalar($0[rule] ?? .null, key: rule, now: Date()) }
            }
            for line in Output.table(headers: ["RULE"] + result.types.map(\.type), rows: rows) { print(line) }
        }
    }

    /// `group join`: `group.join`.
    struct Join: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Join a group: at once (addOpt ANY) or as an application the owner or an admin decides (AUTH)."
        )
        @OptionGroup var group: GroupIDOption
        @Option(help: ArgumentHelp("A message for whoever decides.", valueName: "text")) var message: String?
        @OptionGroup var options: GlobalOptions
        func run() async throws {
            try await Runner.call(GroupMethods.Join.self, .init(groupID: self.group.groupID, message: self.message), self.options)
        }
    }

    /// `group applications`: `group.applications`.
    struct Applications: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List a group's join applications, newest first (owner and admins).")
        @OptionGroup var group: GroupIDOption
        @Option(help: ArgumentHelp("Where to start: a nextSeq from the previous page.", valueName: "n")) var nextSeq: Int64?
        @OptionGroup var options: GlobalOptions
        func run() async throws {
            try await Runner.call(GroupMethods.Applications.self, .init(groupID: self.group.groupID, nextSeq: self.nextSeq), self.options)
        }
    }

    /// The options of `group accept` and `group refuse`.
    struct DecisionOptions: ParsableArguments {
        @OptionGroup var group: GroupIDOption
        @Option(help: ArgumentHelp("The application's id.", valueName: "id")) var application: Int64
        @Option(help: ArgumentHelp("A message for the applicant.", valueName: "text")) var message: String?
        @OptionGroup var options: GlobalOptions

        func run<M: RPCMethod>(_ method: M.Type) async throws where M.Params == GroupMethods.ApplicationDecision {
            let params = GroupMethods.ApplicationDecision(groupID: self.group.groupID, applicationID: self.application, message: self.message)
            try await Runner.call(M.self, params, self.options)
        }
    }

    /// `group accept`: `group.acceptApplication`.
    struct Accept: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Accept a join application (owner and admins).")
        @OptionGroup var decision: DecisionOptions
        func run() async throws { try await self.decision.run(GroupMethods.AcceptApplication.self) }
    }

    /// `group refuse`: `group.refuseApplication`.
    struct Refuse: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Refuse a join application (owner and admins).")
        @OptionGroup var decision: DecisionOptions
        func run() async throws { try await self.decision.run(GroupMethods.RefuseApplication.self) }
    }

    /// `group quit`: `group.quit`.
    struct Quit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Leave a group (owners may leave only Work groups).")
        @OptionGroup var group: GroupIDOption
        @OptionGroup var options: GlobalOptions
        func run() async throws { try await Runner.call(GroupMethods.Quit.self, .init(groupID: self.group.groupID), self.options) }
    }

    /// `group dismiss`: `group.dismiss`.
    struct Dismiss: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Dismiss a group (its owner; Work groups: an admin).")
        @OptionGroup var group: GroupIDOption
        @OptionGroup var options: GlobalOptions
        func run() async throws { try await Runner.call(GroupMethods.Dismiss.self, .init(groupID: self.group.groupID), self.options) }
    }

    /// `group joined`: `group.joinedList`.
    struct Joined: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the groups you (or, for an admin, --user) joined, with profiles.")
        @Option(name: .customLong("user"), help: ArgumentHelp("Admins: another user.", valueName: "user-id")) var userID: String?
        @OptionGroup var options: GlobalOptions
        func run() async throws { try await Runner.call(GroupMethods.JoinedList.self, .init(userID: self.userID), self.options) }
    }

    /// `group info`: `group.getInfo`.
    struct Info: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show the profiles of one or more groups.")
        @Option(name: .customLong("group-id"), help: ArgumentHelp("A group id (repeatable).", valueName: "id")) var groupIDs: [String] = []
        @OptionGroup var options: GlobalOptions
        func validate() throws {
            if self.groupIDs.isEmpty { throw ValidationError("Missing expected argument '--group-id <id>'.") }
        }
        func run() async throws { try await Runner.call(GroupMethods.GetInfo.self, .init(groupIDs: self.groupIDs), self.options) }
    }

    /// `group set-info`: `group.setInfo`.
    struct SetInfo: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Change a group's profile; options not given stay as they are.")
        @OptionGroup var group: GroupIDOption
        @Option(help: ArgumentHelp("The name.", valueName: "text")) var name: String?
        @Option(help: ArgumentHelp("The introduction.", valueName: "text")) var introduction: String?
        @Option(help: ArgumentHelp("The notice.", valueName: "text")) var notification: String?
        @Option(name: .customLong("face-url"), help: ArgumentHelp("The picture's URL.", valueName: "url")) var faceURL: String?
        @Option(name: .customLong("add-opt"), help: ArgumentHelp("How others join: FORBID, AUTH or ANY.", valueName: "opt")) var addOpt: String?
        @Option(name: .customLong("all-muted"), help: ArgumentHelp("Mute (true) or unmute (false) every ordinary member.", valueName: "bool"))
        var allMuted: Bool?
        @OptionGroup var options: GlobalOptions
        func run() async throws {
            let params = GroupMethods.SetInfo.Params(
                groupID: self.group.groupID,
                name: self.name,
                introduction: self.introduction,
                notification: self.notification,
                faceURL: self.faceURL,
                addOpt: try wireChoice(self.addOpt, "--add-opt"),
                allMuted: self.allMuted
            )
            try await Runner.call(GroupMethods.SetInfo.self, params, self.options)
        }
    }

    /// `group receive-option`: `group.setReceiveOption`.
    struct ReceiveOption: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Set how you receive a group's messages.")
        @OptionGroup var group: GroupIDOption
        @Option(help: ArgumentHelp("RECEIVE, NOT_RECEIVE or RECEIVE_NOT_NOTIFY.", valueName: "option")) var option: String
        @OptionGroup var options: GlobalOptions
        func run() async throws {
            try await Runner.call(
                GroupMethods.SetReceiveOption.self,
                .init(groupID: self.group.groupID, option: try wireChoice(self.option, "--option")),
                self.options
            )
        }
    }

    /// `group member-list`: `group.memberList`.
    struct MemberList: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List members with their IM details, 50 a page, by role.")
        @OptionGroup var group: GroupIDOption
        @Option(help: ArgumentHelp("ALL, OWNER, ADMIN or COMMON.", valueName: "filter")) var filter: String?
        @Option(help: ArgumentHelp("Where to start: a nextSeq from the previous page.", valueName: "n")) var nextSeq: Int64?
        @OptionGroup var options: GlobalOptions
        func run() async throws {
            let params = GroupMethods.MemberList.Params(
                groupID: self.group.groupID,
                filter: try wireChoice(self.filter, "--filter"),
                nextSeq: self.nextSeq
            )
            try await Runner.call(GroupMethods.MemberList.self, params, self.options)
        }
    }

    /// `group mute`: `group.muteMember`.
    struct Mute: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Mute a member for some seconds (0 unmutes).")
        @OptionGroup var group: GroupIDOption
        @OptionGroup var user: UserIDOption
        @Option(help: ArgumentHelp("How long, in seconds.", valueName: "n")) var seconds: Int64
        @OptionGroup var options: GlobalOptions
        func run() async throws {
            let params = GroupMethods.MuteMember.Params(groupID: self.group.groupID, userID: self.user.userID, seconds: self.seconds)
            try await Runner.call(GroupMethods.MuteMember.self, params, self.options)
        }
    }

    /// `group set-role`: `group.setMemberRole`.
    struct SetRole: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Make a member an admin, or an admin a member (the owner).")
        @OptionGroup var group: GroupIDOption
        @OptionGroup var user: UserIDOption
        @Option(help: ArgumentHelp("admin or member.", valueName: "role")) var role: String
        @OptionGroup var options: GlobalOptions
        func run() async throws {
            let params = GroupMethods.SetMemberRole.Params(
                groupID: self.group.groupID,
                userID: self.user.userID,
                role: try wireChoice(self.role, "--role")
            )
            try await Runner.call(GroupMethods.SetMemberRole.self, params, self.options)
        }
    }

    /// `group transfer`: `group.transferOwner`.
    struct Transfer: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Hand the group to another member (the owner).")
        @OptionGroup var group: GroupIDOption
        @OptionGroup var user: UserIDOption
        @OptionGroup var options: GlobalOptions
        func run() async throws {
            try await Runner.call(GroupMethods.TransferOwner.self, .init(groupID: self.group.groupID, userID: self.user.userID), self.options)
        }
    }

    /// `group attributes`: `group.getAttributes`.
    struct Attributes: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show a group's attributes and their version.")
        @OptionGroup var group: GroupIDOption
        @Option(name: .customLong("key"), help: ArgumentHelp("Only this key (repeatable).", valueName: "key")) var keys: [String] = []
        @OptionGroup var options: GlobalOptions
        func run() async throws {
            let params = GroupMethods.GetAttributes.Params(groupID: self.group.groupID, keys: self.keys.isEmpty ? nil : self.keys)
            try await Runner.call(GroupMethods.GetAttributes.self, params, self.options)
        }
    }

    /// `group set-attributes`: `group.setAttributes`.
    struct SetAttributes: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add or change attributes given as KEY=VALUE.")
        @OptionGroup var group: GroupIDOption
        @Argument(help: ArgumentHelp("KEY=VALUE pairs.", valueName: "key=value")) var pairs: [String]
        @Option(help: ArgumentHelp("Fail (10056) unless the attributes are still at this version.", valueName: "n")) var version: Int64?
        @OptionGroup var options: GlobalOptions
        func run() async throws {
            var attributes: [String: String] = [:]
            for pair in self.pairs {
                guard let equals = pair.firstIndex(of: "=") else { throw ValidationError("'\(pair)' is not KEY=VALUE.") }
                attributes[String(pair[..<equals])] = String(pair[pair.index(after: equals)...])
            }
            let params = GroupMethods.AttributesWrite(groupID: self.group.groupID, attributes: attributes, version: self.version)
            try await Runner.call(GroupMethods.SetAttributes.self, params, self.options)
        }
    }
}
