import Foundation
import Glibc
import GuildProtocol

/// One connection of `guild-bench soak`, on its own thread, reconnecting whenever guildd is killed:
///
/// - a writer sends `group.sendMessage` to its group with a unique text (`wN-M`) and, one time in ten,
///   registers a pseudo user (then authenticates as itself again); it records which writes were acknowledged
///   and which were in flight when the connection broke (their outcome unknown);
/// - a reader calls `system.ping`, `session.whoami`, `user.get`, `group.getInfo` and `group.memberList`;
/// - a subscriber (a root peer, so admin) subscribes to every event (`all`), from `since` its last `seq`
///   after every reconnect or `events.ended`, and checks that the `seq`s it gets go up by exactly one.
struct SoakWorker: Sendable {
    enum Role: Sendable {
        case writer(user: PseudoUser, groupID: String)
        case reader(user: PseudoUser, groupID: String)
        case subscriber
    }

    /// What one worker did.
    struct Tally: Sendable {
        var acknowledgedTexts: [String] = []
        var unknownTexts: [String] = []
        var acknowledgedUsers: [String] = []
        var reads = 0
        var errors = 0
        var firstError: String?
        var reconnects = 0
        /// Subscribers: events received, resubscriptions, and the seq checks.
        var events = 0
        var resubscriptions = 0
        var lastSeq: Int64 = 0
        var gaps = 0
        var duplicates = 0
        var firstGap: String?
    }

    let index: Int
    let role: Role
    let socketPath: String
    let stop: StopFlag
    /// Pause between calls, in seconds.
    let pace: Double

    func run() -> Tally {
        var tally = Tally()
        switch self.role {
        case .writer(let user, let groupID): self.write(user: user, groupID: groupID, &tally)
        case .reader(let user, let groupID): self.read(user: user, groupID: groupID, &tally)
        case .subscriber: self.subscribe(&tally)
        }
        return tally
    }

    /// A connection authenticated as `user` (nil: none), retried until guildd answers or `stop` is set.
    private func connect(_ user: PseudoUser?, _ tally: inout Tally) -> LineConnection? {
        while !self.stop.isSet {
            do {
                let connection = try LineConnection(path: self.socketPath, timeout: 10, capacity: 64 * 1024)
                if let user {
                    _ = try connection.call(SessionMethods.Authenticate.self, .init(accessToken: user.accessToken))
                }
                return connection
            } catch {
                usleep(100_000)
            }
        }
        return nil
    }

    private func note(_ error: any Error, _ tally: inout Tally) {
        tally.errors += 1
        if tally.firstError == nil { tally.firstError = "\(error)" }
    }

    private func write(user: PseudoUser, groupID: String, _ tally: inout Tally) {
        var counter = 0
        var connection: LineConnection?
        while !self.stop.isSet {
            if connection == nil {
                connection = self.connect(user, &tally)
                continue
            }
            guard let open = connection else { break }
            counter += 1
            let registers = counter % 10 == 0
            let text = "w\(self.index)-\(counter)"
            do {
                if registers {
                    let created = try open.call(UserMethods.RegisterPseudo.self, .init(displayName: text))
                    tally.acknowledgedUsers.append(created.user.userID)
                    _ = try open.call(SessionMethods.Authenticate.self, .init(accessToken: user.accessToken))
                } else {
                    _ = try open.call(GroupMethods.SendMessage.self, .init(groupID: groupID, text: text))
                    tally.acknowledgedTexts.append(text)
                }
            } catch let error as RawSocket.Failure {
                // The connection broke (guildd killed) with the call in flight: its outcome is unknown.
                if !registers { tally.unknownTexts.append(text) }
                _ = error
                open.close()
                connection = nil
                tally.reconnects += 1
                continue
            } catch {
                self.note(error, &tally)
            }
            usleep(UInt32(self.pace * 1e6))
        }
        connection?.close()
    }

    private func read(user: PseudoUser, groupID: String, _ tally: inout Tally) {
        var step = 0
        var connection: LineConnection?
        while !self.stop.isSet {
            if connection == nil {
                connection = self.connect(user, &tally)
                continue
            }
            guard let open = connection else { break }
            step += 1
            do {
                switch step % 5 {
                case 0: _ = try open.call(SystemMethods.Ping.self, NoParams())
                case 1: _ = try open.call(SessionMethods.WhoAmI.self, NoParams())
                case 2: _ = try open.call(UserMethods.Get.self, .init())
                case 3: _ = try open.call(GroupMethods.GetInfo.self, .init(groupIDs: [groupID]))
                default: _ = try open.call(GroupMethods.MemberList.self, .init(groupID: groupID))
                }
                tally.reads += 1
            } catch is RawSocket.Failure {
                open.close()
                connection = nil
                tally.reconnects += 1
                continue
            } catch {
                self.note(error, &tally)
            }
            usleep(UInt32(self.pace * 1e6))
        }
        connection?.close()
    }

    private func subscribe(_ tally: inout Tally) {
        var connection: LineConnection?
        var first = true
        while !self.stop.isSet {
            if connection == nil {
                guard let fresh = self.connect(nil, &tally) else { break }
                do {
                    // The first time from the log's start; then from the last seq seen.
                    _ = try fresh.call(EventMethods.Subscribe.self, .init(since: tally.lastSeq, all: true))
                    if !first { tally.resubscriptions += 1 }
                    first = false
                    fresh.setNonBlocking()
                    connection = fresh
                } catch {
                    fresh.close()
                    usleep(100_000)
                    continue
                }
            }
            guard let open = connection else { break }
            var descriptor = pollfd(fd: open.fd, events: Int16(POLLIN), revents: 0)
            _ = poll(&descriptor, 1, 200)
            var ended = false
            let alive: Bool
            do {
                alive = try FanOut.eventPrefix.withUnsafeBytes { prefix in
                    try FanOut.seqKey.withUnsafeBytes { seqKey in
                        try open.drain { line in
                            if line.count > prefix.count, memcmp(line.baseAddress!, prefix.baseAddress!, prefix.count) == 0,
                                let seq = RawRPC.integer(after: seqKey, in: line, from: prefix.count)
                            {
                                tally.events += 1
                                if seq.value == tally.lastSeq + 1 {
                                    tally.lastSeq = seq.value
                                } else if seq.value <= tally.lastSeq {
                                    tally.duplicates += 1
                                } else {
                                    tally.gaps += 1
                                    if tally.firstGap == nil { tally.firstGap = "after \(tally.lastSeq) came \(seq.value)" }
                                    tally.lastSeq = seq.value
                                }
                            } else if RawRPC.contains(line, FanOut.endedMarker) {
                                ended = true
                            }
                        }
                    }
                }
            } catch {
                alive = false
            }
            if !alive || ended {
                open.close()
                connection = nil
                if !alive { tally.reconnects += 1 }
            }
        }
        connection?.close()
    }
}
