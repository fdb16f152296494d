import Foundation
import Glibc
import GuildHarness
import GuildProtocol

/// One connection (or pair) of `guild-bench soak`, on its own thread, reconnecting whenever guildd is killed:
///
/// - a writer sends `group.sendMessage` to its group with a unique text (`wN-M`) and, one time in ten,
///   registers a pseudo user (then authenticates as itself again); it records which writes were acknowledged
///   and which were in flight when the connection broke (their outcome unknown);
/// - a reader calls `system.ping`, `session.whoami`, `user.get`, `group.getInfo` and `group.memberList`;
/// - a subscriber (a root peer, so admin) subscribes to every event (`all`), from `since` its last `seq`
///   after every reconnect or `events.ended`, and checks that the `seq`s it gets go up by exactly one; with
///   `resumeEvery` it also disconnects on its own that often and resumes;
/// - an object writer creates objects with unique bodies in its user's bucket and, every fifth call, queries it;
///   with `keepObjects`, it deletes its oldest object after each create past that many;
/// - a thing pair (an owner and its thing, two connections) sends commands the thing answers with results, the
///   owner waiting for each `commandResult`;
/// - a login user logs in with a password, refreshes the token and asks who it is, over and over;
/// - a guildctl worker runs `guildctl ping` and `guildctl call system.status`, a new process and connection each;
/// - a schedule worker makes a trigger due a second ahead and waits for it to fire, over and over.
///
/// Every call is timed and recorded by kind in the ``SoakRecorder``.
struct SoakWorker: Sendable {
    enum Role: Sendable {
        case writer(user: PseudoUser, groupID: String)
        case reader(user: PseudoUser, groupID: String)
        case subscriber
        case objects(user: PseudoUser)
        case things
        case logins
        case guildctl(path: String)
        case schedules
    }

    /// What one worker did.
    struct Tally: Sendable {
        var acknowledgedTexts: [String] = []
        var unknownTexts: [String] = []
        var acknowledgedUsers: [String] = []
        /// Objects created and not deleted since (`user:ID`, objectID), and commands answered with results.
        var acknowledgedObjects: [(scope: String, objectID: String)] = []
        var commands = 0
        /// Schedule workers: the triggers made (each must fire once), and the events received.
        var acknowledgedTriggers: [(owner: PseudoUser, thingID: String, triggerID: String)] = []
        var schedules = 0
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
    let recorder: SoakRecorder
    /// Subscribers disconnect on their own this often and resume with `since` (nil: only when the daemon is
    /// killed or ends the subscription).
    var resumeEvery: Double? = nil
    /// Once `stop` is set, how far subscribers still read (the log's head when the writers stopped).
    var catchUp: SoakCatchUp? = nil
    /// Object writers keep only their newest this many objects, deleting the oldest after each create, so their
    /// buckets stop growing (0: keep every object).
    var keepObjects = 0

    /// Runs the role until `stop` (and its catch-up) ends it: on a thread of its own, as its calls block, except
    /// the guildctl role's, which only waits for child processes.
    func run() async throws -> Tally {
        if case .guildctl(let path) = self.role { return await self.runGuildctl(path) }
        return try await onThread("soak-\(self.index)") { self.runOnThread() }
    }

    private func runOnThread() -> Tally {
        var tally = Tally()
        switch self.role {
        case .writer(let user, let groupID): self.write(user: user, groupID: groupID, &tally)
        case .reader(let user, let groupID): self.read(user: user, groupID: groupID, &tally)
        case .subscriber: self.subscribe(&tally)
        case .objects(let user): self.writeObjects(user: user, &tally)
        case .things: self.sendCommands(&tally)
        case .logins: self.logIn(&tally)
        case .guildctl: preconditionFailure("the guildctl role runs as a task (run())")
        case .schedules: self.fireSchedules(&tally)
        }
        return tally
    }

    /// One call on `connection`, timed and recorded as `kind`: the result, or nil after an error reply (counted in
    /// `tally`). Throws ``RawSocket/Failure`` when the connection broke.
    func timed<M: RPCMethod>(
        _ kind: SoakRecorder.Kind,
        _ connection: LineConnection,
        _ method: M.Type,
        _ params: M.Params,
        _ tally: inout Tally
    ) throws -> M.Result? {
        let start = monotonicNanos()
        try connection.send(method, params)
        let reply = try connection.readLine()
        let seconds = Double(monotonicNanos() - start) / 1e9
        switch try RawRPC.outcome(method, reply) {
        case .success(let result):
            self.recorder.record(kind, seconds: seconds, error: nil)
            return result
        case .failure(let error):
            self.recorder.record(kind, seconds: seconds, error: error)
            self.note(DaemonError("\(M.name) failed: \(error)"), &tally)
            return nil
        }
    }

    /// A connection authenticated as `user` (nil: none), retried until guildd answers or `stop` is set.
    func connect(_ user: PseudoUser?, _ tally: inout Tally) -> LineConnection? {
        while !self.stop.isSet || (user == nil && self.catchUp?.shouldContinue(lastSeq: tally.lastSeq) == true) {
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

    func note(_ error: any Error, _ tally: inout Tally) {
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
                    if let created = try self.timed(.message, open, UserMethods.RegisterPseudo.self, .init(displayName: text), &tally) {
                        tally.acknowledgedUsers.append(created.user.userID)
                    }
                    _ = try open.call(SessionMethods.Authenticate.self, .init(accessToken: user.accessToken))
                } else {
                    if try self.timed(.message, open, GroupMethods.SendMessage.self, .init(groupID: groupID, text: text), &tally) != nil {
                        tally.acknowledgedTexts.append(text)
                    }
                }
            } catch let error as RawSocket.Failure {
                // The connection broke (guildd killed) with the call in flight: its outcome is unknown.
                if !registers { tally.unknownTexts.append(text) }
                _ = error
                open.close()
                connection = nil
                self.recorder.recordFailure()
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
                case 0: _ = try self.timed(.read, open, SystemMethods.Ping.self, NoParams(), &tally)
                case 1: _ = try self.timed(.read, open, SessionMethods.WhoAmI.self, NoParams(), &tally)
                case 2: _ = try self.timed(.read, open, UserMethods.Get.self, .init(), &tally)
                case 3: _ = try self.timed(.read, open, GroupMethods.GetInfo.self, .init(groupIDs: [groupID]), &tally)
                default: _ = try self.timed(.read, open, GroupMethods.MemberList.self, .init(groupID: groupID), &tally)
                }
                tally.reads += 1
            } catch is RawSocket.Failure {
                open.close()
                connection = nil
                self.recorder.recordFailure()
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
        var subscribedAt = monotonicNanos()
        while !self.stop.isSet || self.catchUp?.shouldContinue(lastSeq: tally.lastSeq) == true {
            if connection == nil {
                guard let fresh = self.connect(nil, &tally) else { break }
                do {
                    // The first time from the log's start; then from the last seq seen.
                    _ = try fresh.call(EventMethods.Subscribe.self, .init(since: tally.lastSeq, all: true))
                    if !first { tally.resubscriptions += 1 }
                    first = false
                    fresh.setNonBlocking()
                    connection = fresh
                    subscribedAt = monotonicNanos()
                } catch {
                    fresh.close()
                    usleep(100_000)
                    continue
                }
            }
            guard let open = connection else { break }
            if let resumeEvery = self.resumeEvery, Double(monotonicNanos() - subscribedAt) / 1e9 > resumeEvery {
                // Leaves on its own; the next turn resumes from the last seq seen.
                open.close()
                connection = nil
                continue
            }
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
