import GuildJSON

/// Commands: owners send them, the thing receives each as `commandReceived` and posts its results, and the
/// result's `commandResult` goes to the issuer's installations (seed 001's rule).
extension ThingService {
    /// The most commands in one `command.list` page, and the default.
    public static let maximumCommandPage = 100

    /// The most commands a thing may have pending (SENDING or DELIVERED: the thing has not posted their
    /// results). `command.send` past it is `quotaExceeded`, and a trigger firing past it is skipped
    /// (``TriggerSkip``): a thing that never answers holds at most this many commands, however many are sent
    /// or fired. A thing that answers frees one per result.
    public static let maximumPendingCommands = 1_000

    /// The error for a command past ``maximumPendingCommands``; `usage` is how many the thing has pending.
    static func pendingCommandsExceeded(_ thingID: String, usage: Int) -> GuildError {
        var error = GuildError(
            .quotaExceeded,
            "commands pending per thing: thing \(thingID) has \(usage) pending, the limit is \(Self.maximumPendingCommands); "
                + "it must post results (command.putResults) before more are sent"
        )
        error.details = ["limit": Int64(Self.maximumPendingCommands), "usage": Int64(usage)]
        return error
    }

    /// Sends a command: the issuer must be an owner of the thing, and the caller must act for the issuer (the
    /// user themself, a member of the issuing group, or an admin). A thing with ``maximumPendingCommands``
    /// pending gets no more: `quotaExceeded`, and nothing is written.
    public func send(caller: Caller, thingID: String, request: CommandRequest) async throws -> ThingCommand {
        try Self.check(request)
        let now = self.now()
        return try await self.store.write { tx in
            try Self.requireThingExists(thingID, tx)
            try Self.requireOwnerRights(caller, request.issuer, tx)
            guard try tx.things.thingOwners(thingID: thingID).contains(request.issuer) else {
                throw GuildError(.permissionDenied, "the issuer \(request.issuer) is not an owner of thing \(thingID)", field: "issuer")
            }
            let sender = caller.session?.user
            let command = ThingCommand(
                commandID: RandomID.timeOrderedHex(now: now),
                thingID: thingID,
                request: request,
                senderUserID: sender?.id,
                senderInstallationID: caller.installationID,
                senderIsPseudo: sender?.isPseudo ?? false,
                created: now,
                modified: now
            )
            try self.storageQuota.charging(.thing(thingID), tx) { try Self.store(command, tx) }
            // Counted once the command and its event are in: on PostgreSQL, a transaction's first event takes the
            // event log's lock until it commits, so every other host's commands for the thing are counted too.
            // Past the bound the operation throws and its savepoint rolls the command back.
            let pending = try tx.things.pendingCommandCount(thingID: thingID)
            guard pending <= Self.maximumPendingCommands else {
                throw Self.pendingCommandsExceeded(thingID, usage: pending - 1)
            }
            return command
        }
    }

    /// Checks a command's actions and texts.
    static func check(_ request: CommandRequest) throws(GuildError) {
        try ThingRules.checkActions(request.actions)
        try ThingRules.checkCommandTexts(
            schema: request.schema,
            schemaVersion: request.schemaVersion,
            title: request.title,
            description: request.description,
            metadata: request.metadata
        )
    }

    /// Stores a command and appends its `commandReceived`, addressed to the thing.
    static func store(_ command: ThingCommand, _ tx: any Transaction) throws {
        try tx.things.insertCommand(command)
        var members: [String: JSONValue] = [
            "commandID": .string(command.commandID),
            "actions": .array(command.request.actions),
            "issuer": .string(command.request.issuer.description),
            "schema": .string(command.request.schema),
            "schemaVersion": .int(Int64(command.request.schemaVersion)),
        ]
        if let trigger = command.firedByTriggerID { members["firedByTriggerID"] = .string(trigger) }
        if let title = command.request.title { members["title"] = .string(title) }
        if let description = command.request.description { members["description"] = .string(description) }
        if let metadata = command.request.metadata { members["metadata"] = .object(metadata) }
        try tx.append(
            ThingEvent(
                kind: .commandReceived,
                thingID: command.thingID,
                time: command.created,
                audience: ThingAudience(principals: [command.thingID]),
                members: members
            )
        )
    }

    /// A command: for the thing's owners, the thing itself and admins.
    public func command(caller: Caller, thingID: String, commandID: String) async throws -> ThingCommand {
        try await self.store.read { tx in
            _ = try Self.requireThing(thingID, tx)
            try Self.requireOwnerOrThing(caller, thingID, tx)
            guard let command = try tx.things.command(thingID: thingID, commandID: commandID) else {
                throw GuildError(.commandNotFound, "no command \(commandID) on thing \(thingID)", field: "commandID")
            }
            return command
        }
    }

    /// A page of the thing's commands, newest first; `paginationKey` continues after the previous page.
    public func commands(
        caller: Caller,
        thingID: String,
        limit: Int?,
        paginationKey: String?
    ) async throws
        -> (commands: [ThingCommand], nextPaginationKey: String?)
    {
        let limit = try Self.pageLimit(limit, maximum: Self.maximumCommandPage)
        let binding = PageBinding("thing.commands", caller: caller, [thingID])
        let before = try paginationKey.map { key throws(GuildError) in try self.position(key, for: binding) }
        return try await self.store.read { tx in
            _ = try Self.requireThing(thingID, tx)
            try Self.requireOwnerOrThing(caller, thingID, tx)
            let page = try tx.things.commands(thingID: thingID, before: before, limit: limit + 1)
            let next = page.count > limit ? self.key(page[limit - 1].position, for: binding) : nil
            return (page.prefix(limit).map(\.command), next)
        }
    }

    /// The thing posts its results: one per action, in order. The command becomes DONE when every action
    /// succeeded, else INCOMPLETE, and `commandResult` (the commandID only) goes to the installations of its
    /// sender: all of a normal user's, the sending one only for a pseudo user.
    public func putResults(caller: Caller, thingID: String, commandID: String, results: [JSONValue]) async throws -> CommandState {
        guard caller.thingID == thingID || caller.isAdmin else {
            if caller.principalID == nil { throw GuildError(.unauthorized, "only the thing posts results: authenticate with its token") }
            throw GuildError(.permissionDenied, "only the thing itself posts its commands' results")
        }
        let now = self.now()
        return try await self.store.write { tx in
            try Self.requireThingExists(thingID, tx)
            guard var command = try tx.things.command(thingID: thingID, commandID: commandID) else {
                throw GuildError(.commandNotFound, "no command \(commandID) on thing \(thingID)", field: "commandID")
            }
            guard !command.state.isFinished else {
                throw GuildError(.commandAlreadyDone, "command \(commandID) already has its results (\(command.state.rawValue))")
            }
            let succeeded = try ThingRules.checkResults(results, for: command.request.actions)
            command.actionResults = results
            command.state = succeeded ? .done : .incomplete
            command.modified = now
            try tx.things.updateCommand(command)
            let installations: [String]
            if let sender = command.senderUserID {
                installations =
                    command.senderIsPseudo
                    ? command.senderInstallationID.map { [$0] } ?? []
                    : try tx.things.installations(userID: sender).map(\.installationID)
            } else {
                installations = []
            }
            if let sender = command.senderUserID, !installations.isEmpty {
                try tx.append(
                    ThingEvent(
                        kind: .commandResult,
                        thingID: thingID,
                        time: now,
                        audience: ThingAudience(installations: installations, installationUsers: [sender]),
                        members: ["commandID": .string(commandID)]
                    )
                )
            }
            return command.state
        }
    }

    /// Records that things received commands (their notifications reached a connection bound to the thing):
    /// SENDING ones become DELIVERED, in one write.
    public func markDelivered(_ deliveries: [(thingID: String, commandID: String)]) async throws {
        guard !deliveries.isEmpty else { return }
        let now = self.now()
        let byThing = Dictionary(grouping: deliveries, by: \.thingID).mapValues { $0.map(\.commandID) }
        try await self.store.write { tx in
            for (thingID, commandIDs) in byThing {
                _ = try tx.things.markCommandsDelivered(thingID: thingID, commandIDs: commandIDs, now: now)
            }
        }
    }

    // MARK: - Paging

    /// A page size: 1 to `maximum`, `maximum` when absent.
    static func pageLimit(_ limit: Int?, maximum: Int) throws(GuildError) -> Int {
        guard let limit else { return maximum }
        guard limit >= 1, limit <= maximum else { throw .invalidInput("limit is 1-\(maximum)", field: "limit") }
        return limit
    }

    /// The position sealed in a pagination key made for `binding` (see ``PageKeys``).
    func position(_ key: String, for binding: PageBinding, field: String = "paginationKey") throws(GuildError) -> Int64 {
        let opened: [UInt8]
        do {
            opened = try self.pageKeys.open(key, for: binding)
        } catch {
            // The key's own field name where the method calls it something else (trigger.results: cursor).
            var renamed = error
            renamed.field = field
            throw renamed
        }
        guard let position = Int64(String(decoding: opened, as: UTF8.self)),
            position >= 0
        else {
            throw .invalidInput("\(field) is not one this daemon returned", field: field)
        }
        return position
    }

    /// A pagination key holding `position`, sealed for `binding`: the row position says nothing to the caller.
    func key(_ position: Int64, for binding: PageBinding) -> String {
        self.pageKeys.seal(Array(String(position).utf8), for: binding)
    }
}
