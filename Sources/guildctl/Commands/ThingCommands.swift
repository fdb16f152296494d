import ArgumentParser
import Foundation
import GuildClient
import GuildJSON
import GuildProtocol

/// `guildctl thing ...`: things, their owners and states (see protocol/things.md).
struct ThingCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "thing",
        abstract: "Onboard things, manage their owners, read and upload states, and run a thing as a shell-scripted agent.",
        discussion: """
            Owners are TypedIDs: user:ID or group:ID. A thing's own token (printed by onboard, or kept as a \
            profile with onboard --save) makes guildctl act as the thing: guildctl --token TOKEN thing put-state \
            ..., or guildctl --profile PROFILE thing agent ...
            """,
        subcommands: [
            Onboard.self, Get.self, Find.self, Update.self, Disable.self, Enable.self, Owners.self, AddOwner.self, RemoveOwner.self,
            Owned.self, State.self, PutState.self, History.self, Delete.self, SetPassword.self, ThingAgentCommand.self,
        ]
    )
}

/// Which thing: `--thing`.
struct ThingOptions: ParsableArguments {
    @Option(name: .customLong("thing"), help: ArgumentHelp("The thing's id (th.…).", valueName: "thingID"))
    var thingID: String
}

extension ThingOptions {
    /// `thing disable` and `thing enable`: switches the thing and prints `true`.
    func setDisabled(_ disabled: Bool, _ options: GlobalOptions) async throws {
        try await Runner.run(options) { try await $0.setThingDisabled(self.thingID, disabled) }
        try Output.printResult(true, json: options.json)
    }
}

extension GuildClient {
    /// `user:<id>` of the bound user (for default owners and issuers).
    func ownTypedID() async throws -> String {
        let session = try await self.call(SessionMethods.WhoAmI.self)
        guard let user = session.user else {
            throw ValidationError("No user session: log in, or give --owner/--issuer (user:ID or group:ID).")
        }
        return "user:" + user.userID
    }
}

extension ThingCommand {
    struct Onboard: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "onboard",
            abstract: "Onboard a thing (thing.onboard) and print its id and token; registers it with its password at first, adds the owner later.",
            discussion: """
                The password comes from --password, --password-stdin, GUILD_PASSWORD, or a prompt without echo. \
                The password of the first onboarding sticks: onboarding the vendorThingID again with another one \
                fails with INVALID_CREDENTIALS (exit 4).

                The thing's token is printed (it is kept nowhere else; every onboarding mints another one, valid \
                until the thing is deleted): as accessToken (also with --json), e.g. \
                TOKEN=$(guildctl thing onboard ... --json | jq -r .accessToken). With --save PROFILE it is kept \
                as that profile's login on this socket instead (and not printed without --show-token or --json), \
                so later commands act as the thing: guildctl --profile PROFILE thing agent --thing ID --exec CMD.
                """
        )

        @Option(name: .customLong("vendor-thing-id"), help: ArgumentHelp("The vendor's id: 1-200 of [a-zA-Z0-9-_.].", valueName: "id"))
        var vendorThingID: String
        @OptionGroup var password: PasswordOptions
        @Option(help: ArgumentHelp("The owner: user:ID or group:ID (default: the logged-in user).", valueName: "typedID"))
        var owner: String?
        @Option(name: .customLong("thing-type"), help: ArgumentHelp("The thing's type.", valueName: "type"))
        var thingType: String?
        @Option(name: .customLong("firmware-version"), help: ArgumentHelp("The firmware version.", valueName: "version"))
        var firmwareVersion: String?
        @Option(help: ArgumentHelp("Custom properties as a JSON object, or @FILE.", valueName: "json"))
        var properties: String?
        @Option(help: ArgumentHelp("Keep the thing's token as this profile's login (not the running profile's).", valueName: "profile"))
        var save: String?
        @OptionGroup var options: GlobalOptions

        func validate() throws {
            if let save = self.save {
                if save.isEmpty || save.count > 64 { throw ValidationError("--save takes a profile name of 1 to 64 characters.") }
                if save == self.options.profileName, self.options.explicitToken == nil {
                    throw ValidationError("--save \(save) would replace the login onboarding uses; save the thing under another profile.")
                }
            }
        }

        func run() async throws {
            let password = try self.password.resolved(prompt: "Thing password: ")
            let properties = try self.properties.map { try JSONInput.object($0, "--properties").objectValue }
            let result = try await Runner.run(self.options) { client in
                let owner = try await self.owner.asyncOr { try await client.ownTypedID() }
                return try await client.onboardThing(
                    vendorThingID: self.vendorThingID,
                    password: password,
                    owner: owner,
                    thingType: self.thingType,
                    firmwareVersion: self.firmwareVersion,
                    properties: properties ?? nil
                )
            }
            if let profile = self.save {
                let login = StoredLogin(thingID: result.thingID, vendorThingID: self.vendorThingID, accessToken: result.accessToken)
                try CredentialStore().store(login, profile: profile, socket: self.options.socketPath)
                if !self.options.json {
                    print("Saved the token of thing \(result.thingID) as profile \(profile) on \(self.options.socketPath).")
                }
            }
            try Output.printResult(result, json: self.options.json, showTokens: self.save == nil || self.options.showToken)
        }
    }

    struct Get: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "get", abstract: "Print a thing's record and whether it is online (thing.get).")

        @OptionGroup var thing: ThingOptions
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            let result = try await Runner.run(self.options) { try await $0.thing(self.thing.thingID) }
            try Output.printResult(result, json: self.options.json)
        }
    }

    struct Find: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "find",
            abstract: "Print a thing's record found by its vendorThingID (thing.find)."
        )

        @Option(name: .customLong("vendor-thing-id"), help: ArgumentHelp("The vendor's id.", valueName: "id"))
        var vendorThingID: String
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            let result = try await Runner.run(self.options) { try await $0.findThing(vendorThingID: self.vendorThingID) }
            try Output.printResult(result, json: self.options.json)
        }
    }

    struct Update: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "update",
            abstract: "Change a thing's type, firmware version or custom properties (thing.update) and print the thing.",
            discussion: "--properties are merged into the thing's: a key set to null is removed, the others are kept."
        )

        @OptionGroup var thing: ThingOptions
        @Option(name: .customLong("thing-type"), help: ArgumentHelp("The thing's new type.", valueName: "type"))
        var thingType: String?
        @Option(name: .customLong("firmware-version"), help: ArgumentHelp("The new firmware version.", valueName: "version"))
        var firmwareVersion: String?
        @Option(help: ArgumentHelp("Custom properties to set, as a JSON object, or @FILE.", valueName: "json"))
        var properties: String?
        @OptionGroup var options: GlobalOptions

        func validate() throws {
            if self.thingType == nil && self.firmwareVersion == nil && self.properties == nil {
                throw ValidationError("Give at least one of --thing-type, --firmware-version or --properties.")
            }
        }

        func run() async throws {
            let properties = try self.properties.map { try JSONInput.object($0, "--properties").objectValue }
            let result = try await Runner.run(self.options) {
                try await $0.updateThing(
                    self.thing.thingID,
                    thingType: self.thingType,
                    firmwareVersion: self.firmwareVersion,
                    properties: properties ?? nil
                )
            }
            try Output.printResult(result, json: self.options.json)
        }
    }

    struct Disable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "disable",
            abstract: "Disable a thing (thing.disable; an owner or admin): its token stops working and its connections are unbound."
        )

        @OptionGroup var thing: ThingOptions
        @OptionGroup var options: GlobalOptions

        func run() async throws { try await self.thing.setDisabled(true, self.options) }
    }

    struct Enable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "enable",
            abstract: "Enable a disabled thing again (thing.enable; an owner or admin)."
        )

        @OptionGroup var thing: ThingOptions
        @OptionGroup var options: GlobalOptions

        func run() async throws { try await self.thing.setDisabled(false, self.options) }
    }

    struct Owners: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "owners", abstract: "List a thing's owners (thing.owners).")

        @OptionGroup var thing: ThingOptions
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            let result = try await Runner.run(self.options) { try await $0.call(ThingMethods.Owners.self, .init(thingID: self.thing.thingID)) }
            try Output.printResult(result, json: self.options.json)
        }
    }

    struct AddOwner: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add-owner",
            abstract: "Add an owner (thing.addOwner): yourself, or a group you are a member of.",
            discussion: "--password gives the thing's password, which a daemon started with --require-thing-password-for-ownership needs."
        )

        @OptionGroup var thing: ThingOptions
        @Option(help: ArgumentHelp("The owner: user:ID or group:ID (default: the logged-in user).", valueName: "typedID"))
        var owner: String?
        @Option(help: ArgumentHelp("The thing's password.", valueName: "password"))
        var password: String?
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            try await Runner.run(self.options) { client in
                let owner = try await self.owner.asyncOr { try await client.ownTypedID() }
                try await client.addThingOwner(self.thing.thingID, owner: owner, password: self.password)
            }
            try Output.printResult(true, json: self.options.json)
        }
    }

    struct RemoveOwner: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "remove-owner", abstract: "Remove an owner (thing.removeOwner).")

        @OptionGroup var thing: ThingOptions
        @Option(help: ArgumentHelp("The owner: user:ID or group:ID (default: the logged-in user).", valueName: "typedID"))
        var owner: String?
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            try await Runner.run(self.options) { client in
                let owner = try await self.owner.asyncOr { try await client.ownTypedID() }
                try await client.removeThingOwner(self.thing.thingID, owner: owner)
            }
            try Output.printResult(true, json: self.options.json)
        }
    }

    struct Owned: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "owned",
            abstract: "List the things you own, directly or through your groups (user.ownedThings)."
        )

        @Option(name: .customLong("user-id"), help: ArgumentHelp("Whose (admins only; default: yours).", valueName: "userID"))
        var userID: String?
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            let result = try await Runner.run(self.options) { try await $0.call(ThingMethods.OwnedThings.self, .init(userID: self.userID)) }
            try Output.printResult(result, json: self.options.json)
        }
    }

    struct State: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "state", abstract: "Print a thing's latest state (thing.getState).")

        @OptionGroup var thing: ThingOptions
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            let result = try await Runner.run(self.options) { try await $0.thingState(self.thing.thingID) }
            try Output.printResult(result, json: self.options.json)
        }
    }

    struct PutState: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "put-state",
            abstract: "Upload a thing's state (thing.putState), as the thing or an owner; prints whether it was the first."
        )

        @OptionGroup var thing: ThingOptions
        @Option(help: ArgumentHelp("The state as a JSON object (at most 10 KB), or @FILE.", valueName: "json"))
        var state: String
        @Option(help: ArgumentHelp("The state's time, ms since the epoch (default: the daemon's clock).", valueName: "ms"))
        var timestamp: Int64?
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            let state = try JSONInput.object(self.state, "--state").objectValue ?? [:]
            let result = try await Runner.run(self.options) {
                try await $0.call(ThingMethods.PutState.self, .init(thingID: self.thing.thingID, state: state, timestamp: self.timestamp))
            }
            try Output.printResult(result, json: self.options.json)
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete",
            abstract: "Delete a thing with its owners, commands, states, triggers and thing-scope data (thing.delete)."
        )

        @OptionGroup var thing: ThingOptions
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            try await Runner.run(self.options) { try await $0.deleteThing(self.thing.thingID) }
            try Output.printResult(true, json: self.options.json)
        }
    }

    struct SetPassword: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set-password",
            abstract: "Change a thing's password (thing.setPassword; app admins only).",
            discussion: "The password comes from --password, --password-stdin, GUILD_PASSWORD, or a prompt without echo."
        )

        @OptionGroup var thing: ThingOptions
        @OptionGroup var password: PasswordOptions
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            let password = try self.password.resolved(prompt: "New thing password: ")
            _ = try await Runner.run(self.options) {
                try await $0.call(ThingMethods.SetPassword.self, .init(thingID: self.thing.thingID, thingPassword: password))
            }
            try Output.printResult(true, json: self.options.json)
        }
    }
}

extension Optional {
    /// The value, or `fallback`'s when nil.
    func asyncOr(_ fallback: () async throws -> Wrapped) async throws -> Wrapped {
        if let self { return self }
        return try await fallback()
    }
}
