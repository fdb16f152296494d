/// Where in the source a write comes from (`#fileID` and `#line` of the ``Store/write(_:fileID:line:)`` call).
///
/// An engine with more than one write connection learns per site whether its writes append events: those that
/// never do may commit beside the event log's writer instead of behind it (``GuildPostgres/PostgresWriter``).
/// Engines with one writer ignore it.
public struct WriteSite: Hashable, Sendable, CustomStringConvertible {
    /// The file, as `#fileID` spells it (`GuildCore/UserService.swift`).
    public var fileID: String
    /// The line of the call.
    public var line: Int

    /// Creates a site.
    public init(fileID: String, line: Int) {
        self.fileID = fileID
        self.line = line
    }

    public var description: String { "\(self.fileID):\(self.line)" }
}
