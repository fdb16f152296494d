import Foundation
import Synchronization

/// The messages the fuzz connections sent in the last seconds (bounded in age and in bytes), so that a
/// failure can be reproduced from a file.
final class SentLog: Sendable {
    struct Entry: Sendable {
        /// Monotonic time of the write.
        var time: UInt64
        var connection: Int
        var bytes: [UInt8]
    }

    private struct State {
        var entries: [Entry] = []
        var first = 0
        var bytes = 0
        var frozen = false
    }

    private let state = Mutex(State())
    private let keepNanos: UInt64
    private let maximumBytes: Int

    init(keepSeconds: Double, maximumBytes: Int = 256 << 20) {
        self.keepNanos = UInt64(keepSeconds * 1e9)
        self.maximumBytes = maximumBytes
    }

    func record(connection: Int, bytes: [UInt8]) {
        self.state.withLock { state in
            guard !state.frozen else { return }
            // Read under the lock, so entries are in time order: a time read before it could be older than an
            // entry another connection appended meanwhile, and `now - time` below would trap.
            let now = monotonicNanos()
            state.entries.append(Entry(time: now, connection: connection, bytes: bytes))
            state.bytes += bytes.count
            while state.first < state.entries.count,
                now - state.entries[state.first].time > self.keepNanos || state.bytes > self.maximumBytes
            {
                state.bytes -= state.entries[state.first].bytes.count
                state.first += 1
            }
            if state.first > 4_096, state.first * 2 > state.entries.count {
                state.entries.removeFirst(state.first)
                state.first = 0
            }
        }
    }

    /// Stops recording and returns what is kept, oldest first.
    func freeze() -> [Entry] {
        self.state.withLock { state in
            state.frozen = true
            return Array(state.entries[state.first...])
        }
    }

    /// Writes `entries` as JSON lines after a header line: `{"ms":…,"connection":…,"message":"…"}`, `ms`
    /// relative to `reference` (negative: before it). Returns the path.
    static func write(_ entries: [Entry], header: [String: String], reference: UInt64, to path: String) throws -> String {
        var out = Data()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        out.append(try encoder.encode(header))
        out.append(0x0A)
        struct Line: Encodable {
            var ms: Double
            var connection: Int
            var message: String
        }
        for entry in entries {
            var message = entry.bytes
            if message.last == 0x0A { message.removeLast() }
            // One entry may hold several pipelined lines: one record each.
            for line in message.split(separator: 0x0A, omittingEmptySubsequences: false) {
                let ms = (Double(entry.time) - Double(reference)) / 1e6
                out.append(try encoder.encode(Line(ms: ms, connection: entry.connection, message: String(decoding: line, as: UTF8.self))))
                out.append(0x0A)
            }
        }
        try out.write(to: URL(fileURLWithPath: path))
        return path
    }
}
