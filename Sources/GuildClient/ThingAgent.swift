import GuildJSON
import GuildProtocol

/// A thing's side of Thing-IF in a few lines: connects as the thing with its token, streams the commands
/// sent to it (those it has not answered yet first, after a reconnect too), and posts each command's
/// results.
///
/// ```swift
/// let agent = try await ThingAgent.connect(path: socket, thingID: id, accessToken: token)
/// for try await command in agent.commands() {
///     try await agent.succeed(command)  // or agent.post(command, results: ...)
/// }
/// ```
public struct ThingAgent: Sendable {
    /// A command as the thing receives it.
    public struct Command: Sendable, Hashable {
        public var commandID: String
        /// `[{name: params}]`, in the order to run them.
        public var actions: [JSONValue]
        public var issuer: String?
        public var firedByTriggerID: String?

        /// The actions' names, in order.
        public var actionNames: [String] { self.actions.compactMap { $0.objectValue?.keys.first } }
    }

    /// The connection, bound to the thing.
    public let client: GuildClient
    /// The thing.
    public let thingID: String

    /// Connects to the daemon and binds the connection to the thing.
    public static func connect(path: String = GuildClient.defaultSocketPath(), thingID: String, accessToken: String) async throws -> ThingAgent {
        let client = try await GuildClient.connect(path: path)
        do {
            _ = try await client.call(SessionMethods.Authenticate.self, .init(accessToken: accessToken))
        } catch {
            await client.close()
            throw error
        }
        return ThingAgent(client: client, thingID: thingID)
    }

    /// The commands sent to the thing, in order: those still waiting for results first (from `command.list`),
    /// then each new one as it arrives. Ends when the connection closes.
    public func commands() -> AsyncThrowingStream<Command, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: Command.self, throwing: (any Error).self)
        let task = Task { [client, thingID] in
            do {
                let subscription = try await client.subscribe(
                    thingIDs: [thingID],
                    kinds: ["commandReceived"]
                )
                var seen = Set<String>()
                for command in try await Self.waiting(client, thingID) where seen.insert(command.commandID).inserted {
                    continuation.yield(command)
                }
                for try await event in subscription.events {
                    guard let commandID = event.commandID, seen.insert(commandID).inserted else { continue }
                    continuation.yield(
                        Command(commandID: commandID, actions: event.actions ?? [], issuer: event.issuer, firedByTriggerID: event.firedByTriggerID)
                    )
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// Commands not yet answered, oldest first.
    private static func waiting(_ client: GuildClient, _ thingID: String) async throws -> [Command] {
        var waiting: [Command] = []
        var key: String?
        repeat {
            let page = try await client.commands(thingID, paginationKey: key)
            for command in page.commands where command.actionResults == nil {
                waiting.append(
                    Command(
                        commandID: command.commandID,
                        actions: command.actions,
                        issuer: command.issuer,
                        firedByTriggerID: command.firedByTriggerID
                    )
                )
            }
            key = page.nextPaginationKey
        } while key != nil
        return waiting.reversed()
    }

    /// Posts a command's results: `outcomes` gives, per action in order, whether it succeeded and why not.
    @discardableResult
    public func post(_ command: Command, outcomes: [(succeeded: Bool, errorMessage: String?, data: JSONValue?)]) async throws -> String {
        var results: [JSONValue] = []
        for (name, outcome) in zip(command.actionNames, outcomes) {
            var body: [String: JSONValue] = ["succeeded": .bool(outcome.succeeded)]
            if let message = outcome.errorMessage { body["errorMessage"] = .string(message) }
            if let data = outcome.data { body["data"] = data }
            results.append(.object([name: .object(body)]))
        }
        return try await self.client.putCommandResults(self.thingID, commandID: command.commandID, results: results)
    }

    /// Posts that every action of the command succeeded.
    @discardableResult
    public func succeed(_ command: Command) async throws -> String {
        try await self.post(command, outcomes: command.actionNames.map { _ in (true, nil, nil) })
    }

    /// Uploads the thing's state.
    @discardableResult
    public func putState(_ state: [String: JSONValue]) async throws -> Bool {
        try await self.client.putThingState(self.thingID, state)
    }

    /// Closes the connection (the thing goes offline when no other connection is bound to it).
    public func close() async {
        await self.client.close()
    }
}
