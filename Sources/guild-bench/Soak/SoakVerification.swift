import Foundation
import Glibc
import GuildHarness
import GuildJSON
import GuildProtocol

/// The checks after a soak, on the daemon as it is at the end: `system.check`, a replay of the whole event log
/// (`events.subscribe` with `all` from `since` 0) that must be gap-free and hold every acknowledged message
/// exactly once, `user.get` of every acknowledged pseudo user and `object.get` of every acknowledged object.
struct SoakVerification: Sendable {
    var check = ""
    var head: Int64 = 0
    /// The seq the replay started after: 0, or the one before the oldest event the retention kept.
    var replayFrom: Int64 = 0
    var replayGaps = 0
    var replayDuplicates = 0
    var missing = 0
    var duplicated = 0
    /// Messages whose call was in flight at a kill and that are in the log (once is fine, twice is not).
    var unknownCommitted = 0
    var usersMissing = 0
    var objectsMissing = 0
    /// Acknowledged single-time triggers whose results are not exactly one firing.
    var triggersNotOnce = 0
    var failures: [String] = []

    static let textKey = Array(#""text":""#.utf8)
    static let newMessage = Array(#""kind":"newMessage""#.utf8)

    /// Blocking.
    static func run(
        _ socketPath: String,
        acknowledged: [[String]],
        unknown: [String],
        users: [String],
        objects: [(scope: String, objectID: String)] = [],
        triggers: [(owner: PseudoUser, thingID: String, triggerID: String)] = []
    ) throws -> SoakVerification {
        var result = SoakVerification()
        let admin = try LineConnection(path: socketPath, timeout: 300, capacity: 1 << 20)
        defer { admin.close() }

        let check = try admin.call(SystemMethods.Check.self, NoParams())
        result.check = check.ok ? "ok" : "FAILED: integrity \(check.integrity), violations \(check.violations.prefix(5))"
        if !check.ok { result.failures.append("system.check failed") }

        // The replay: every event the log keeps, counting message texts. A long run passes the retention
        // (a million events by default): then the replay starts at the oldest kept event (CURSOR_EXPIRED's
        // data.oldestSeq), and acknowledged messages whose events were pruned cannot be counted.
        var counts: [String: Int] = [:]
        var lastSeq: Int64 = 0
        let replay = try LineConnection(path: socketPath, timeout: 60, capacity: 1 << 20)
        defer { replay.close() }
        try replay.send(EventMethods.Subscribe.self, .init(since: 0, all: true))
        var subscribed: EventMethods.Subscribe.Result
        switch try RawRPC.outcome(EventMethods.Subscribe.self, try replay.readLine()) {
        case .success(let result):
            subscribed = result
        case .failure(let error):
            guard error.code == .cursorExpired, let oldest = error.data?["oldestSeq"]?.intValue else {
                throw DaemonError("\(EventMethods.Subscribe.name) failed: \(error)")
            }
            lastSeq = oldest - 1
            result.replayFrom = lastSeq
            subscribed = try replay.call(EventMethods.Subscribe.self, .init(since: lastSeq, all: true))
        }
        result.head = subscribed.seq
        while lastSeq < result.head {
            var ended = false
            try FanOut.eventPrefix.withUnsafeBytes { prefix in
                try FanOut.seqKey.withUnsafeBytes { seqKey in
                    try Self.textKey.withUnsafeBytes { textKey in
                        try replay.readLines { line in
                            guard line.count > prefix.count, memcmp(line.baseAddress!, prefix.baseAddress!, prefix.count) == 0,
                                let seq = RawRPC.integer(after: seqKey, in: line, from: prefix.count)
                            else {
                                ended = RawRPC.contains(line, FanOut.endedMarker)
                                return !ended
                            }
                            if seq.value == lastSeq + 1 {
                                lastSeq = seq.value
                            } else if seq.value <= lastSeq {
                                result.replayDuplicates += 1
                            } else {
                                result.replayGaps += 1
                                lastSeq = seq.value
                            }
                            if RawRPC.contains(line, Self.newMessage), let start = RawRPC.find(textKey, in: line) {
                                let from = start + textKey.count
                                var end = from
                                while end < line.count, line[end] != UInt8(ascii: "\"") { end += 1 }
                                counts[String(decoding: UnsafeRawBufferPointer(rebasing: line[from..<end]), as: UTF8.self), default: 0] += 1
                            }
                            return lastSeq < result.head
                        }
                    }
                }
            }
            if ended {
                // Fell behind (LAGGED): resume from the last seq read.
                subscribed = try replay.call(EventMethods.Subscribe.self, .init(since: lastSeq, all: true))
            }
        }
        if result.replayGaps > 0 || result.replayDuplicates > 0 {
            result.failures.append("the event log replays with \(result.replayGaps) gaps and \(result.replayDuplicates) duplicates")
        }
        // Each worker's acknowledged messages, in the order it sent them (one call in flight at a time, so also
        // the order they committed in): the retention prunes the oldest events, so a worker's missing messages
        // may only come before its first one found.
        var outOfOrder = 0
        for texts in acknowledged {
            var found = false
            for text in texts {
                switch counts[text] ?? 0 {
                case 1: found = true
                case 0:
                    result.missing += 1
                    if found { outOfOrder += 1 }
                default: result.duplicated += 1
                }
            }
        }
        for text in unknown {
            let count = counts[text] ?? 0
            if count == 1 { result.unknownCommitted += 1 }
            if count > 1 { result.duplicated += 1 }
        }
        if result.replayFrom > 0 {
            // Pruned events hide their messages, and only those: a message missing after one that is found was lost.
            if result.duplicated > 0 || outOfOrder > 0 {
                result.failures.append(
                    "\(result.missing) acknowledged messages missing (\(outOfOrder) of them sent after one that is kept), "
                        + "\(result.duplicated) duplicated"
                )
            }
        } else if result.missing > 0 || result.duplicated > 0 {
            result.failures.append("\(result.missing) acknowledged messages missing, \(result.duplicated) duplicated")
        }

        // The pseudo users, 200 pipelined calls at a time.
        var next = 0
        while next < users.count {
            let chunk = users[next..<min(next + 200, users.count)]
            for userID in chunk { try admin.send(UserMethods.Get.self, .init(userID: userID)) }
            // Replies may come in any order: match them by the userID they return.
            var found = Set<String>()
            for _ in chunk {
                if let profile = try? RawRPC.decode(UserMethods.Get.self, try admin.readLine()) { found.insert(profile.userID) }
            }
            result.usersMissing += chunk.filter { !found.contains($0) }.count
            next += chunk.count
        }
        if result.usersMissing > 0 { result.failures.append("\(result.usersMissing) acknowledged pseudo users missing") }

        // The objects, one call each (the admin reads any scope).
        for object in objects {
            let reply = try admin.call(ObjectMethods.Get.self, .init(scope: object.scope, bucket: "soak", objectID: object.objectID))
            if reply.objectValue?["_id"] != .string(object.objectID) { result.objectsMissing += 1 }
        }
        if result.objectsMissing > 0 { result.failures.append("\(result.objectsMissing) acknowledged objects missing") }
        // Every acknowledged single-time trigger fired exactly once (its due time is long past), kills or not.
        var owners: [String: LineConnection] = [:]
        defer { for connection in owners.values { connection.close() } }
        for trigger in triggers {
            let connection: LineConnection
            if let open = owners[trigger.owner.userID] {
                connection = open
            } else {
                connection = try LineConnection(path: socketPath, timeout: 60, capacity: 1 << 20)
                _ = try connection.call(SessionMethods.Authenticate.self, .init(accessToken: trigger.owner.accessToken))
                owners[trigger.owner.userID] = connection
            }
            _ = try connection.send(TriggerMethods.Results.self, .init(thingID: trigger.thingID, triggerID: trigger.triggerID))
            let results = try RawRPC.decode(TriggerMethods.Results.self, try SoakWorker.reply(connection)).results
            if results.count != 1 || results.first?.outcome != "NOTIFIED" { result.triggersNotOnce += 1 }
        }
        if result.triggersNotOnce > 0 {
            result.failures.append("\(result.triggersNotOnce) of \(triggers.count) acknowledged triggers did not fire exactly once")
        }
        return result
    }
}
