import GuildJSON

/// What a trigger does when it fires: Thing-IF's `triggersWhat`.
public enum TriggerAction: Sendable, Hashable {
    /// Sends a command to the thing (`COMMAND`), with `firedByTriggerID`.
    case command(CommandRequest)
    /// Appends a `triggerFired` event (`NOTIFY`): kept in the event log and replayed like every event, to the
    /// trigger's creator and to subscriptions that name the trigger's topic, so a subscribed program can act as
    /// Thing-IF's server code. `parameters`, when given, is passed on in the event as it was set.
    case notify(parameters: JSONValue?)

    /// The wire names of `triggersWhat`.
    public static let names = ["COMMAND", "NOTIFY"]

    /// `COMMAND` or `NOTIFY`.
    public var name: String {
        switch self {
        case .command: "COMMAND"
        case .notify: "NOTIFY"
        }
    }

    /// The command, for a `COMMAND` action.
    public var command: CommandRequest? {
        if case .command(let request) = self { return request }
        return nil
    }
}
