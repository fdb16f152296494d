import Foundation
import GuildProtocol

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One stored login: the tokens `guildctl login` (or `register`) obtained, for one profile and socket; or a
/// thing's token, kept by `guildctl thing onboard --save`.
struct StoredLogin: Codable, Hashable, Sendable {
    /// The user's id; for a thing, its thingID (so older guildctl versions still read the file).
    var userID: String
    /// Set when the login is a thing's: its id. Its token never expires and has no refresh token.
    var thingID: String?
    /// The login name or display name, for messages.
    var name: String?
    var accessToken: String
    var refreshToken: String?
    /// When the access token expires, ms since the Unix epoch; nil when it never does.
    var expiresAt: Int64?

    init(_ auth: AuthResult) {
        self.userID = auth.user.userID
        self.name = auth.user.username ?? auth.user.displayName
        self.accessToken = auth.accessToken
        self.refreshToken = auth.refreshToken
        self.expiresAt = auth.expiresAt
    }

    /// A thing's login: its token from `thing.onboard`.
    init(thingID: String, vendorThingID: String, accessToken: String) {
        self.userID = thingID
        self.thingID = thingID
        self.name = vendorThingID
        self.accessToken = accessToken
    }

    /// Whether the access token has expired at `now` (ms since the epoch).
    func expired(now: Int64) -> Bool {
        guard let expiresAt = self.expiresAt else { return false }
        return expiresAt <= now
    }
}

/// `$XDG_CONFIG_HOME/guild/credentials.json` (else `~/.config/guild/credentials.json`): the stored logins,
/// by profile then by socket path. The file is mode 0600 in a 0700 directory and is replaced atomically
/// (written to a temporary file, synced, renamed), so a reader never sees half a file.
struct CredentialStore: Sendable {
    /// The file's layout.
    struct Contents: Codable, Sendable {
        var version = 1
        var profiles: [String: [String: StoredLogin]] = [:]
    }

    /// Why the file could not be read or written.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    let path: String

    init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        let base: String
        if let config = environment["XDG_CONFIG_HOME"], !config.isEmpty {
            base = config
        } else {
            base = (environment["HOME"] ?? NSHomeDirectory()) + "/.config"
        }
        self.path = base + "/guild/credentials.json"
    }

    /// The key of a socket path: absolute, with `.` and `..` resolved.
    static func key(socket: String) -> String {
        URL(fileURLWithPath: socket).standardizedFileURL.path
    }

    /// The file's contents; empty when it does not exist.
    func read() throws -> Contents {
        guard let data = FileManager.default.contents(atPath: self.path) else { return Contents() }
        do {
            return try JSONDecoder().decode(Contents.self, from: data)
        } catch {
            throw Failure(description: "\(self.path) is not a valid credentials file: \(error)")
        }
    }

    /// The login stored for `profile` on `socket`, if any.
    func login(profile: String, socket: String) throws -> StoredLogin? {
        try self.read().profiles[profile]?[Self.key(socket: socket)]
    }

    /// Stores `login` for `profile` on `socket` (nil: forgets it), keeping every other entry.
    func store(_ login: StoredLogin?, profile: String, socket: String) throws {
        var contents = try self.read()
        var logins = contents.profiles[profile] ?? [:]
        logins[Self.key(socket: socket)] = login
        contents.profiles[profile] = logins.isEmpty ? nil : logins
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try self.replace(with: try encoder.encode(contents))
    }

    /// Replaces the file with `data`: a 0600 temporary file in the same directory, synced, then renamed.
    private func replace(with data: Data) throws {
        let directory = (self.path as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(
                atPath: directory,
                withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700]
            )
        } catch {
            throw Failure(description: "cannot create \(directory): \(error.localizedDescription)")
        }
        let temporary = directory + "/.credentials.json.\(getpid()).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw Failure(description: "cannot write \(temporary): \(String(cString: strerror(errno)))") }
        var failed = fchmod(fd, 0o600) != 0
        data.withUnsafeBytes { buffer in
            var offset = 0
            while !failed, offset < buffer.count {
                let written = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failed = true
                } else {
                    offset += written
                }
            }
        }
        if fsync(fd) != 0 { failed = true }
        close(fd)
        guard !failed, rename(temporary, self.path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw Failure(description: "cannot write \(self.path): \(reason)")
        }
    }
}
