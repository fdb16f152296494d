import CSystemd
import Foundation
import Logging

/// A swift-log backend that writes to the systemd journal with `sd_journal_sendv`, one entry per message with
/// structured fields: `MESSAGE=`, `PRIORITY=` (syslog levels), `SYSLOG_IDENTIFIER=guildd`, `CODE_FILE=`,
/// `CODE_LINE=`, `CODE_FUNC=`, `GUILD_LOGGER=` (the logger's label) and one `GUILD_…=` field per metadata
/// entry (`rpc.method` as `GUILD_METHOD=`, `conn` as `GUILD_CONN=`, `user` as `GUILD_USER=`). Metadata whose
/// key names a secret (token, password, secret, hash) is never sent.
struct JournalLogHandler: LogHandler {
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .info
    let label: String

    init(label: String) {
        self.label = label
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { self.metadata[key] }
        set { self.metadata[key] = newValue }
    }

    /// Whether guildd's stderr is connected to the journal: `JOURNAL_STREAM` (`device:inode`, set by systemd)
    /// names the file stderr is (see systemd.exec(5)).
    static func stderrIsJournal(environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        guard let stream = environment["JOURNAL_STREAM"] else { return false }
        let parts = stream.split(separator: ":")
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        var status = stat()
        guard fstat(STDERR_FILENO, &status) == 0 else { return false }
        return UInt64(status.st_dev) == device && UInt64(status.st_ino) == inode
    }

    func log(event: LogEvent) {
        let (level, message, explicit, file, function, line) = (
            event.level, event.message, event.metadata, event.file, event.function, event.line
        )
        var fields = [
            "MESSAGE=\(message)",
            "PRIORITY=\(Self.priority(level))",
            "SYSLOG_IDENTIFIER=guildd",
            "CODE_FILE=\(file)",
            "CODE_LINE=\(line)",
            "CODE_FUNC=\(function)",
            "GUILD_LOGGER=\(self.label)",
        ]
        let merged = self.metadata.merging(explicit ?? [:]) { _, new in new }
        for key in merged.keys.sorted() {
            guard let value = merged[key], let name = Self.fieldName(key) else { continue }
            fields.append("\(name)=\(value)")
        }
        Self.send(fields)
    }

    /// The syslog priority of a level.
    static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }

    /// The journal field for a metadata key (nil for a key that names a secret): upper case, `GUILD_` first,
    /// anything but letters, digits and `_` turned into `_`.
    static func fieldName(_ key: String) -> String? {
        let lowered = key.lowercased()
        if ["token", "password", "secret", "hash"].contains(where: { lowered.contains($0) }) { return nil }
        switch key {
        case "rpc.method", "method": return "GUILD_METHOD"
        case "conn", "connection": return "GUILD_CONN"
        case "user", "userID": return "GUILD_USER"
        default:
            let cleaned = key.uppercased().map { $0.isASCII && ($0.isLetter || $0.isNumber) ? $0 : "_" }
            return "GUILD_" + String(cleaned)
        }
    }

    /// Sends one entry; fields may hold newlines (sd_journal_sendv frames them).
    private static func send(_ fields: [String]) {
        let buffers = fields.map { Array($0.utf8) }
        buffers.withUnsafeBufferPointers { pointers in
            var vectors = pointers.map { iovec(iov_base: UnsafeMutableRawPointer(mutating: $0.baseAddress), iov_len: $0.count) }
            _ = sd_journal_sendv(&vectors, Int32(vectors.count))
        }
    }
}

extension Array where Element == [UInt8] {
    /// Calls `body` with a pointer to each element's bytes, all valid at once.
    fileprivate func withUnsafeBufferPointers<R>(_ body: ([UnsafeBufferPointer<UInt8>]) -> R) -> R {
        func nest(_ index: Int, _ collected: [UnsafeBufferPointer<UInt8>]) -> R {
            guard index < self.count else { return body(collected) }
            return self[index].withUnsafeBufferPointer { nest(index + 1, collected + [$0]) }
        }
        return nest(0, [])
    }
}
