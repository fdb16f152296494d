import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A scratch directory with a short path (Unix socket paths must stay under 108 bytes).
public struct Scratch: Sendable {
    /// The directory.
    public let path: String

    /// Creates a fresh directory under /tmp, readable by every uid (clients run as other users).
    public init() throws {
        self.path = "/tmp/ge-\(UUID().uuidString.prefix(8).lowercased())"
        try FileManager.default.createDirectory(atPath: self.path, withIntermediateDirectories: true)
        chmod(self.path, 0o755)
    }

    /// Where a daemon of this directory listens.
    public var socket: String { self.path + "/s.sock" }
    /// Where a daemon of this directory keeps its database.
    public var database: String { self.path + "/guild.sqlite" }

    /// Deletes the directory and everything in it.
    public func remove() { try? FileManager.default.removeItem(atPath: self.path) }
}
