/// A failure starting, probing or stopping a child process, with a readable description (often the tail of
/// the process's log).
public struct DaemonError: Error, CustomStringConvertible {
    public var description: String

    /// An error that reads as `description`.
    public init(_ description: String) { self.description = description }
}
