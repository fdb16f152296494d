import Foundation
import Glibc
import GuildHarness
import GuildJSON
import GuildProtocol

/// The soak's schedule worker (issue 42): an owner makes a `NOTIFY` single-time trigger due a second ahead on its
/// thing, waits for its `triggerFired` event, and records the event's arrival minus its due time as `schedule`;
/// then the next. A thing holds at most 100 triggers, so every hundredth trigger goes on a newly onboarded thing.
/// Each acknowledged trigger must have fired exactly once by the end (``SoakVerification``), through kills too.
extension SoakWorker {
    /// How far ahead each trigger is due, in ms.
    static let scheduleLead: Int64 = 1_000

    func fireSchedules(_ tally: inout Tally) {
        var owner: PseudoUser?
        var thingID: String?
        var onThing = 0
        var connection: LineConnection?
        while !self.stop.isSet {
            do {
                if owner == nil || thingID == nil || onThing >= 100 {
                    let made = try self.onboardScheduled(owner)
                    owner = made.owner
                    thingID = made.thingID
                    onThing = 0
                    connection?.close()
                    connection = nil
                }
                guard let owner, let thingID else { break }
                if connection == nil {
                    let open = try LineConnection(path: self.socketPath, timeout: 10, capacity: 256 * 1024)
                    _ = try open.call(SessionMethods.Authenticate.self, .init(accessToken: owner.accessToken))
                    _ = try open.call(EventMethods.Subscribe.self, .init(kinds: ["triggerFired"]))
                    connection = open
                }
                guard let open = connection else { break }
                let due = Int64(wallClockMilliseconds()) + Self.scheduleLead
                let params = TriggerMethods.Create.Params(
                    thingID: thingID,
                    .init(predicate: ["eventSource": "SCHEDULE_ONCE", "scheduleAt": .int(due)], triggersWhat: "NOTIFY")
                )
                let start = monotonicNanos()
                _ = try open.send(TriggerMethods.Create.self, params)
                let reply = try Self.reply(open)
                switch try RawRPC.outcome(TriggerMethods.Create.self, reply) {
                case .failure(let error):
                    self.recorder.record(.schedule, seconds: Double(monotonicNanos() - start) / 1e9, error: error)
                    self.note(DaemonError("trigger.create failed: \(error)"), &tally)
                case .success(let created):
                    onThing += 1
                    tally.acknowledgedTriggers.append((owner, thingID, created.triggerID))
                    // Its event: the arrival minus the due time (the daemon's clock is this machine's).
                    let marker = Array(created.triggerID.utf8)
                    let giveUp = monotonicNanos() + 30_000_000_000
                    while monotonicNanos() < giveUp, !self.stop.isSet {
                        let line = try open.readLine()
                        if RawRPC.contains(line, marker) {
                            let arrival = wallClockMilliseconds()
                            self.recorder.record(.schedule, seconds: (arrival - Double(due)) / 1000, error: nil)
                            tally.schedules += 1
                            break
                        }
                    }
                }
            } catch is RawSocket.Failure {
                // guildd killed: the trigger fires after the restart; the check at the end counts it.
                connection?.close()
                connection = nil
                self.recorder.recordFailure()
                tally.reconnects += 1
                usleep(100_000)
                continue
            } catch {
                self.note(error, &tally)
                connection?.close()
                connection = nil
                usleep(100_000)
                continue
            }
            usleep(UInt32(self.pace * 1e6))
        }
        connection?.close()
    }

    /// The next response line on `connection`, past any notification (a trigger made before a reconnect may fire
    /// while a call is in flight).
    static func reply(_ connection: LineConnection) throws -> [UInt8] {
        while true {
            let line = try connection.readLine()
            if !RawRPC.contains(line, Array(#""method":"events."#.utf8)) { return line }
        }
    }

    /// A thing onboarded for `owner` (a new pseudo user when nil).
    private func onboardScheduled(_ owner: PseudoUser?) throws -> (owner: PseudoUser, thingID: String) {
        let connection = try LineConnection(path: self.socketPath, timeout: 10)
        defer { connection.close() }
        let user: PseudoUser
        if let owner {
            user = owner
        } else {
            let registered = try connection.call(UserMethods.RegisterPseudo.self, .init(displayName: "soak scheduler \(self.index)"))
            user = PseudoUser(userID: registered.user.userID, accessToken: registered.accessToken)
        }
        let onboarded = try connection.call(
            ThingMethods.Onboard.self,
            .init(vendorThingID: "sched-\(self.index)-\(UInt32.random(in: 0...UInt32.max))", thingPassword: "pw", owner: "user:" + user.userID)
        )
        return (user, onboarded.thingID)
    }
}
