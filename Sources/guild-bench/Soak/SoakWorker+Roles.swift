import Foundation
import Glibc
import GuildHarness
import GuildJSON
import GuildProtocol

/// The soak's object writers, thing pairs, login users and guildctl runners (see ``SoakWorker``).
extension SoakWorker {
    func writeObjects(user: PseudoUser, _ tally: inout Tally) {
        let scope = "user:" + user.userID
        var counter = 0
        var connection: LineConnection?
        while !self.stop.isSet {
            guard let open = connection ?? self.connect(user, &tally) else { break }
            connection = open
            counter += 1
            do {
                if counter % 5 == 0 {
                    let clause: JSONValue = [
                        "type": "range", "field": "n", "lowerLimit": .int(Int64(counter - 20)), "upperLimit": .int(Int64(counter)),
                    ]
                    _ = try self.timed(.query, open, ObjectMethods.Query.self, .init(scope: scope, bucket: "soak", clause: clause, limit: 10), &tally)
                } else {
                    let body: JSONValue = ["n": .int(Int64(counter)), "text": .string("o\(self.index)-\(counter)")]
                    let created = try self.timed(.object, open, ObjectMethods.Create.self, .init(scope: scope, bucket: "soak", body: body), &tally)
                    if let created { tally.acknowledgedObjects.append((scope, created.objectID)) }
                    if self.keepObjects > 0, tally.acknowledgedObjects.count > self.keepObjects {
                        // Out of the list before the call: if the connection breaks, whether it was deleted is unknown.
                        let oldest = tally.acknowledgedObjects.removeFirst()
                        _ = try self.timed(
                            .object,
                            open,
                            ObjectMethods.Delete.self,
                            .init(scope: scope, bucket: "soak", objectID: oldest.objectID),
                            &tally
                        )
                    }
                }
            } catch {
                self.dropped(open, &connection, &tally)
                continue
            }
            usleep(UInt32(self.pace * 1e6))
        }
        connection?.close()
    }

    /// An owner (a pseudo user) and the thing it onboarded, each on a connection of its own: the owner sends a
    /// command, the thing answers it with results, and the owner waits for the `commandResult` event.
    func sendCommands(_ tally: inout Tally) {
        var identity: (owner: PseudoUser, thingID: String, thingToken: String)?
        var pair: (owner: LineConnection, thing: LineConnection)?
        var counter = 0
        while !self.stop.isSet {
            do {
                if identity == nil { identity = try self.onboard() }
                guard let identity else { break }
                if pair == nil {
                    let owner = try LineConnection(path: self.socketPath, timeout: 10, capacity: 64 * 1024)
                    _ = try owner.call(SessionMethods.Authenticate.self, .init(accessToken: identity.owner.accessToken))
                    // Command results reach the issuer's installations: the owner's connection binds one.
                    _ = try owner.call(
                        InstallationMethods.Register.self,
                        .init(deviceType: "ANDROID", installationRegistrationID: "soak-\(identity.owner.userID)")
                    )
                    _ = try owner.call(EventMethods.Subscribe.self, .init(kinds: ["commandResult"]))
                    let thing = try LineConnection(path: self.socketPath, timeout: 10, capacity: 64 * 1024)
                    _ = try thing.call(SessionMethods.Authenticate.self, .init(accessToken: identity.thingToken))
                    _ = try thing.call(EventMethods.Subscribe.self, .init(thingIDs: [identity.thingID], kinds: ["commandReceived"]))
                    pair = (owner, thing)
                }
                guard let (owner, thing) = pair else { break }
                counter += 1
                let bench = Things.Pair(owner: owner, thing: thing, ownerID: identity.owner.userID, thingID: identity.thingID)
                let start = monotonicNanos()
                try owner.send(Things.sendLine(bench, id: counter))
                if case .failure(let error) = try RawRPC.outcome(CommandMethods.Send.self, try owner.readLine()) {
                    self.recorder.record(.command, seconds: Double(monotonicNanos() - start) / 1e9, error: error)
                    self.note(DaemonError("command.send failed: \(error)"), &tally)
                    continue
                }
                let received = try thing.readLine()
                guard let commandID = received.withUnsafeBytes({ Things.commandID(in: $0) }) else {
                    throw DaemonError("the thing got \(RawRPC.preview(received))")
                }
                try thing.send(Things.resultsLine(bench, commandID: commandID, id: counter))
                if case .failure(let error) = try RawRPC.outcome(CommandMethods.PutResults.self, try thing.readLine()) {
                    self.recorder.record(.command, seconds: Double(monotonicNanos() - start) / 1e9, error: error)
                    self.note(DaemonError("command.putResults failed: \(error)"), &tally)
                    continue
                }
                let result = try owner.readLine()
                guard RawRPC.contains(result, Array(#""commandResult""#.utf8)) else {
                    throw DaemonError("the owner got \(RawRPC.preview(result))")
                }
                self.recorder.record(.command, seconds: Double(monotonicNanos() - start) / 1e9, error: nil)
                tally.commands += 1
            } catch let error as RawSocket.Failure {
                _ = error
                pair?.owner.close()
                pair?.thing.close()
                pair = nil
                self.recorder.recordFailure()
                tally.reconnects += 1
                usleep(100_000)
                continue
            } catch {
                // Out of step (a reply that is not the one expected): start again on fresh connections.
                self.note(error, &tally)
                pair?.owner.close()
                pair?.thing.close()
                pair = nil
                usleep(100_000)
                continue
            }
            usleep(UInt32(self.pace * 1e6))
        }
        pair?.owner.close()
        pair?.thing.close()
    }

    private func onboard() throws -> (owner: PseudoUser, thingID: String, thingToken: String) {
        let connection = try LineConnection(path: self.socketPath, timeout: 10)
        defer { connection.close() }
        let user = try connection.call(UserMethods.RegisterPseudo.self, .init(displayName: "soak owner \(self.index)"))
        let onboarded = try connection.call(
            ThingMethods.Onboard.self,
            .init(vendorThingID: "soak-\(self.index)-\(UInt32.random(in: 0...UInt32.max))", thingPassword: "pw", owner: "user:" + user.user.userID)
        )
        return (PseudoUser(userID: user.user.userID, accessToken: user.accessToken), onboarded.thingID, onboarded.accessToken)
    }

    /// A user with a password: logs in, refreshes the token it got (single use), and asks who it is.
    func logIn(_ tally: inout Tally) {
        let username = "soak\(self.index)x\(UInt32.random(in: 0...UInt32.max))"
        let password = "soak-password-\(self.index)"
        var registered = false
        var connection: LineConnection?
        while !self.stop.isSet {
            do {
                let open = try connection ?? LineConnection(path: self.socketPath, timeout: 10)
                connection = open
                if !registered {
                    _ = try open.call(UserMethods.Register.self, .init(username: username, password: password))
                    registered = true
                }
                if let login = try self.timed(.login, open, UserMethods.Login.self, .init(username: username, password: password), &tally),
                    let refreshToken = login.refreshToken,
                    try self.timed(.refresh, open, UserMethods.Refresh.self, .init(refreshToken: refreshToken), &tally) != nil
                {
                    _ = try self.timed(.read, open, SessionMethods.WhoAmI.self, NoParams(), &tally)
                }
            } catch {
                if let open = connection { self.dropped(open, &connection, &tally) }
                usleep(100_000)
                continue
            }
            usleep(UInt32(self.pace * 1e6))
        }
        connection?.close()
    }

    /// `guildctl ping` and `guildctl call system.status`, one process (and connection) each: a task, not a
    /// thread, as it only waits for its children (``ChildProcess``).
    func runGuildctl(_ path: String) async -> Tally {
        var tally = Tally()
        var counter = 0
        while !self.stop.isSet {
            counter += 1
            let arguments =
                counter % 2 == 0 ? ["ping", "--socket", self.socketPath] : ["call", "system.status", "--socket", self.socketPath, "--json"]
            let start = monotonicNanos()
            do {
                let run = try await ChildProcess.run(path, arguments, timeout: 60)
                if run.status == 0 {
                    self.recorder.record(.guildctl, seconds: Double(monotonicNanos() - start) / 1e9, error: nil)
                } else {
                    self.recorder.recordFailure()
                    self.note(DaemonError("guildctl \(arguments[0]) exited \(run.status): \(run.stderr)"), &tally)
                }
            } catch {
                self.recorder.recordFailure()
                self.note(error, &tally)
            }
            try? await Task.sleep(for: .seconds(self.pace * 4))
        }
        return tally
    }

    /// A connection that broke mid-call (guildd killed): counted, closed, and reconnected on the next turn.
    private func dropped(_ open: LineConnection, _ connection: inout LineConnection?, _ tally: inout Tally) {
        open.close()
        connection = nil
        self.recorder.recordFailure()
        tally.reconnects += 1
    }
}
