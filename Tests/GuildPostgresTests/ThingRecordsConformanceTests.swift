import Foundation
import GuildCore
import GuildJSON
import GuildPostgres
import GuildStore
import PostgresNIO
import Testing

/// The records a things test works with: the things area's, and the users area's to make owners exist.
typealias ThingTestRecords = Transaction

/// A store seen through its things area's records, on the engine stores ``Engine/withStore(_:)`` opens.
struct ThingRecordsStore: Sendable {
    let base: any UserRecordsStore

    func write<T: Sendable>(_ body: @escaping @Sendable (any ThingTestRecords) throws -> T) async throws -> T {
        switch self.base {
        case let sqlite as SQLiteUserRecordsStore:
            return try await sqlite.store.write { transaction in try body(transaction) }
        case let postgres as PostgresUserRecordsStore:
            return try await postgres.writer.write { context in try body(PostgresTransaction(context)) }
        default:
            preconditionFailure("unknown engine store \(type(of: self.base))")
        }
    }

    func read<T: Sendable>(_ body: @escaping @Sendable (any ThingTestRecords) throws -> T) async throws -> T {
        switch self.base {
        case let sqlite as SQLiteUserRecordsStore:
            return try await sqlite.store.read { transaction in try body(transaction) }
        case let postgres as PostgresUserRecordsStore:
            let reader = postgres.reader
            return try await TestPostgres.blocking { try body(PostgresTransaction(reading: reader)) }
        default:
            preconditionFailure("unknown engine store \(type(of: self.base))")
        }
    }
}

extension Engine {
    /// Runs `body` with a fresh, empty store of this engine seen through its things area's records.
    func withThingStore<T: Sendable>(_ body: (ThingRecordsStore) async throws -> T) async throws -> T {
        try await self.withStore { store in try await body(ThingRecordsStore(base: store)) }
    }
}

/// The things area's records behave the same on every engine: the same rows in the same orders, the same
/// answers for what is missing, and (through the checks ``ThingService`` makes on them) the same errors.
@Suite(.timeLimit(.minutes(10)))
struct ThingRecordsConformanceTests {
    // MARK: - Fixtures

    /// A value decoded from JSON text, its type inferred (this target does not import GuildJSON).
    static func json<T: Decodable>(_ text: String) throws -> T {
        try JSONDecoder().decode(T.self, from: Data(text.utf8))
    }

    static func thing(_ id: String, vendor: String? = nil, at time: Int64 = 10) throws -> Thing {
        Thing(
            thingID: id,
            vendorThingID: vendor ?? "vendor-" + id,
            passwordHash: "hash-" + id,
            thingType: "LED",
            firmwareVersion: nil,
            properties: try Self.json(#"{"_x": 1, "name": "lamp\u0000 / é", "nested": {"a": [1, 2.5, null, true]}}"#),
            created: time,
            modified: time
        )
    }

    static func request(issuer: ThingOwner = .user("u1"), full: Bool = false) throws -> CommandRequest {
        CommandRequest(
            actions: try Self.json(#"[{"turnPower": {"power": true}}, {"setBrightness": {"b\u0000": 50}}]"#),
            issuer: issuer,
            schema: "SmartLight",
            schemaVersion: 2,
            title: full ? "Title\u{0}" : nil,
            description: full ? "desc / é" : nil,
            metadata: full ? try Self.json(#"{"m": [1, "two"]}"#) : nil
        )
    }

    static func command(
        _ id: String,
        thingID: String = "th.1",
        state: CommandState = .sending,
        full: Bool = false,
        at time: Int64 = 20
    ) throws -> ThingCommand {
        ThingCommand(
            commandID: id,
            thingID: thingID,
            request: try Self.request(full: full),
            senderUserID: full ? "u1" : nil,
            senderInstallationID: full ? "in.1" : nil,
            senderIsPseudo: full,
            state: state,
            firedByTriggerID: full ? "tr.1" : nil,
            created: time,
            modified: time
        )
    }

    static func state(_ text: String, at timestamp: Int64) throws -> ThingState {
        ThingState(state: try Self.json(text), timestamp: timestamp)
    }

    /// `ThingService.putResults`'s checks and write, over the records: `thingNotFound`, `commandNotFound`,
    /// `commandAlreadyDone`, or the command's new state.
    static func putResults(
        _ tx: any Transaction,
        thingID: String,
        commandID: String,
        succeeded: Bool,
        now: Int64
    ) throws -> ThingCommand {
        guard try tx.things.thingHasState(id: thingID) != nil else {
            throw GuildError(.thingNotFound, "no thing with id \(thingID)", field: "thingID")
        }
        guard var command = try tx.things.command(thingID: thingID, commandID: commandID) else {
            throw GuildError(.commandNotFound, "no command \(commandID) on thing \(thingID)", field: "commandID")
        }
        guard !command.state.isFinished else {
            throw GuildError(.commandAlreadyDone, "command \(commandID) already has its results")
        }
        command.actionResults = try Self.json(
            #"[{"turnPower": {"succeeded": true}}, "#
                + #"{"setBrightness": {"succeeded": \#(succeeded), "errorMessage": "x"}}]"#
        )
        command.state = succeeded ? .done : .incomplete
        command.modified = now
        try tx.things.updateCommand(command)
        return command
    }

    /// Expects `body` to throw a `GuildError` with this code.
    static func expectError(
        _ code: GuildError.Code,
        sourceLocation: SourceLocation = #_sourceLocation,
        _ body: () async throws -> Void
    ) async {
        do {
            try await body()
            Issue.record("expected \(code), nothing was thrown", sourceLocation: sourceLocation)
        } catch let error as GuildError {
            #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("expected \(code), got \(error)", sourceLocation: sourceLocation)
        }
    }

    // MARK: - Things

    @Test(arguments: Engine.available)
    func aThingIsFoundByIdAndVendorIDAndUpdated(engine: Engine) async throws {
        try await engine.withThingStore { store in
            let thing = try Self.thing("th.1")
            try await store.write { try $0.things.insertThing(thing) }
            #expect(try await store.read { try $0.things.thing(id: "th.1") } == thing)
            #expect(try await store.read { try $0.things.thing(vendorThingID: "vendor-th.1") } == thing)
            #expect(try await store.write { try $0.things.thing(vendorThingID: "vendor-th.1") } == thing)
            for missing in ["th.2", "th.1\u{0}", ""] {
                #expect(try await store.read { try $0.things.thing(id: missing) } == nil)
                #expect(try await store.read { try $0.things.thing(vendorThingID: "vendor-" + missing) } == nil)
                #expect(try await store.read { try $0.things.thingHasState(id: missing) } == nil)
            }
            #expect(try await store.read { try $0.things.thingHasState(id: "th.1") } == false)
            try await store.write { try $0.things.markThingHasState(id: "th.1") }
            #expect(try await store.read { try $0.things.thingHasState(id: "th.1") } == true)
            #expect(try await store.read { try $0.things.onlineThingIDs() } == [])

            var updated = try #require(try await store.write { try $0.things.thing(id: "th.1") })
            updated.passwordHash = "new-hash"
            updated.thingType = nil
            updated.firmwareVersion = "1.2"
            updated.properties = try Self.json(#"{"k": "v"}"#)
            updated.modified = 30
            updated.online = true
            updated.onlineModified = 31
            // The vendor's id and the creation time are not written.
            updated.vendorThingID = "changed"
            updated.created = 99
            try await store.write { [updated] in try $0.things.updateThing(updated) }
            var expected = updated
            expected.vendorThingID = "vendor-th.1"
            expected.created = 10
            #expect(try await store.read { try $0.things.thing(id: "th.1") } == expected)
            #expect(try await store.read { try $0.things.onlineThingIDs() } == ["th.1"])
            updated.online = false
            try await store.write { [updated] in try $0.things.updateThing(updated) }
            #expect(try await store.read { try $0.things.onlineThingIDs() } == [])
        }
    }

    @Test(arguments: Engine.available)
    func presenceRowsAndLeasesAnswerTheSameOnEveryEngine(engine: Engine) async throws {
        try await engine.withThingStore { store in
            try await store.write {
                try $0.things.insertThing(try Self.thing("th.1"))
                try $0.things.insertThing(try Self.thing("th.2"))
            }
            // A row per thing and host; the answer is whether any host has the thing.
            #expect(try await store.write { try $0.things.recordThingPresence(true, thingID: "th.1", hostID: "h-a", now: 1) })
            #expect(try await store.write { try $0.things.recordThingPresence(true, thingID: "th.1", hostID: "h-a", now: 2) })
            #expect(try await store.write { try $0.things.recordThingPresence(true, thingID: "th.1", hostID: "h-b", now: 3) })
            #expect(try await store.write { try $0.things.recordThingPresence(true, thingID: "th.2", hostID: "h-b", now: 4) })
            #expect(try await store.write { try $0.things.recordThingPresence(false, thingID: "th.1", hostID: "h-a", now: 5) })
            #expect(try await store.read { try $0.things.thingsPresent(hostID: "h-b") } == ["th.1", "th.2"])
            #expect(try await store.read { try $0.things.thingsPresent(hostID: "h-a") } == [])
            #expect(try await store.write { try $0.things.recordThingPresence(false, thingID: "th.1", hostID: "h-b", now: 6) } == false)
            #expect(try await store.write { try $0.things.recordThingPresence(false, thingID: "missing", hostID: "h-b", now: 6) } == false)
            // Leases: renewing one that is not there says so and makes none.
            #expect(try await store.write { try $0.things.renewHostLease(hostID: "h-a", expires: 100) } == false)
            try await store.write { try $0.things.insertHostLease(hostID: "h-a", name: "m:/a.sock", expires: 100) }
            try await store.write { try $0.things.insertHostLease(hostID: "h-c", name: "m:/c.sock", expires: 50) }
            #expect(try await store.write { try $0.things.renewHostLease(hostID: "h-a", expires: 200) })
            // Ended before 150: h-c; with the unleased, h-b too (rows, no lease); never the asking host.
            #expect(try await store.read { try $0.things.hostsToReap(before: 150, named: nil, unleased: false, except: "h-a") } == ["h-c"])
            #expect(try await store.read { try $0.things.hostsToReap(before: 150, named: nil, unleased: true, except: "h-a") } == ["h-b", "h-c"])
            #expect(try await store.read { try $0.things.hostsToReap(before: 250, named: nil, unleased: false, except: "h-a") } == ["h-c"])
            #expect(try await store.read { try $0.things.hostsToReap(before: 250, named: nil, unleased: false, except: "h-c") } == ["h-a"])
            // A new run of a.sock: its past run is reaped by name, its lease still running.
            try await store.write { try $0.things.insertHostLease(hostID: "h-d", name: "m:/a.sock", expires: 300) }
            #expect(
                try await store.read { try $0.things.hostsToReap(before: 150, named: "m:/a.sock", unleased: false, except: "h-d") } == ["h-a", "h-c"]
            )
            #expect(try await store.read { try $0.things.hostsToReap(before: 150, named: "", unleased: false, except: "h-d") } == ["h-c"])
            try await store.write {
                try $0.things.deleteHostLease(hostID: "h-c")
                try $0.things.deleteHostLease(hostID: "h-d")
            }
            #expect(try await store.read { try $0.things.hostsToReap(before: 150, named: nil, unleased: false, except: "h-a") } == [])
            // A deleted thing takes its rows with it.
            try await store.write { try $0.things.deleteThing(id: "th.2") }
            #expect(try await store.read { try $0.things.thingsPresent(hostID: "h-b") } == [])
        }
    }

    @Test(arguments: Engine.available)
    func aDisabledThingsTokenIsRefusedUntilItIsEnabled(engine: Engine) async throws {
        try await engine.withThingStore { store in
            var thing = try Self.thing("th.1")
            var born = try Self.thing("th.2")
            born.disabled = true
            try await store.write { [thing, born] in
                try $0.things.insertThing(thing)
                try $0.things.insertThing(born)
            }
            #expect(try await store.read { try $0.things.thing(id: "th.2") } == born)
            let hash = Token.generate().hash
            try await store.write { try $0.things.insertThingToken(hash: hash, thingID: "th.1", now: 20) }
            #expect(try await store.read { try $0.users.resolveAccessToken(hash: hash, now: 21) }?.isThing == true)
            thing.disabled = true
            try await store.write { [thing] in try $0.things.updateThing(thing) }
            #expect(try await store.read { try $0.things.thing(vendorThingID: "vendor-th.1") } == thing)
            await Self.expectError(.thingDisabled) { _ = try await store.read { try $0.users.resolveAccessToken(hash: hash, now: 22) } }
            thing.disabled = false
            try await store.write { [thing] in try $0.things.updateThing(thing) }
            #expect(try await store.read { try $0.users.resolveAccessToken(hash: hash, now: 23) }?.user.id == "th.1")
        }
    }

    @Test(arguments: Engine.available)
    func aTakenThingIDOrVendorIDIsRefused(engine: Engine) async throws {
        try await engine.withThingStore { store in
            try await store.write { try $0.things.insertThing(try Self.thing("th.1")) }
            let sameID = try Self.thing("th.1", vendor: "other")
            await #expect(throws: (any Error).self) { try await store.write { try $0.things.insertThing(sameID) } }
            let sameVendor = try Self.thing("th.2", vendor: "vendor-th.1")
            await #expect(throws: (any Error).self) { try await store.write { try $0.things.insertThing(sameVendor) } }
            #expect(try await store.read { try $0.things.thing(id: "th.2") } == nil)
            #expect(try await store.read { try $0.things.thing(vendorThingID: "other") } == nil)
            // A token needs its thing, and a hash is stored once.
            let hash = Token.generate().hash
            try await store.write { try $0.things.insertThingToken(hash: hash, thingID: "th.1", now: 20) }
            await #expect(throws: (any Error).self) {
                try await store.write { try $0.things.insertThingToken(hash: hash, thingID: "th.1", now: 21) }
            }
            await #expect(throws: (any Error).self) {
                try await store.write { try $0.things.insertThingToken(hash: Token.generate().hash, thingID: "th.9", now: 21) }
            }
            // The store goes on writing after a refusal.
            try await store.write { try $0.things.insertThing(try Self.thing("th.3")) }
            #expect(try await store.read { try $0.things.thing(id: "th.3") } != nil)
        }
    }

    @Test(arguments: Engine.available)
    func deletingAThingDeletesItsOwnersCommandsStatesAndTriggers(engine: Engine) async throws {
        try await engine.withThingStore { store in
            for id in ["th.1", "th.2"] {
                try await store.write { tx in
                    try tx.things.insertThing(try Self.thing(id))
                    try tx.things.insertThingToken(hash: Token.generate().hash, thingID: id, now: 20)
                    _ = try tx.things.insertThingOwner(thingID: id, owner: .user("u1"), now: 20)
                    try tx.things.insertCommand(try Self.command("c-" + id, thingID: id))
                    try tx.things.insertState(thingID: id, state: try Self.state(#"{"power": true}"#, at: 5), uploaded: 1)
                    try tx.things.insertTrigger(try Self.trigger("tr-" + id, thingID: id))
                }
            }
            try await store.write { try $0.things.deleteThing(id: "th.1") }
            try await store.write { try $0.things.deleteThing(id: "th.9") }
            try await store.read { tx throws in
                #expect(try tx.things.thing(id: "th.1") == nil)
                #expect(try tx.things.thingOwners(thingID: "th.1") == [])
                #expect(try tx.things.command(thingID: "th.1", commandID: "c-th.1") == nil)
                #expect(try tx.things.commands(thingID: "th.1", before: nil, limit: 10).isEmpty)
                #expect(try tx.things.latestState(thingID: "th.1") == nil)
                #expect(try tx.things.triggers(thingID: "th.1") == [])
                #expect(try tx.things.triggerCount(thingID: "th.1") == 0)
                #expect(try tx.things.things(ownedBy: [.user("u1")]).map(\.thingID) == ["th.2"])
                #expect(try tx.things.command(thingID: "th.2", commandID: "c-th.2") != nil)
                #expect(try tx.things.latestState(thingID: "th.2") != nil)
                #expect(try tx.things.triggers(thingID: "th.2").count == 1)
                #expect(try tx.things.triggerCount(thingID: "th.2") == 1)
            }
            // The vendor's id is free again.
            try await store.write { try $0.things.insertThing(try Self.thing("th.3", vendor: "vendor-th.1")) }
        }
    }

    // MARK: - Owners

    @Test(arguments: Engine.available)
    func ownersAreAddedOnceInOrderAndRemoved(engine: Engine) async throws {
        try await engine.withThingStore { store in
            for id in ["th.b", "th.a", "th.c"] { try await store.write { try $0.things.insertThing(try Self.thing(id)) } }
            let owners: [ThingOwner] = [.user("u2"), .group("g1"), .user("u1"), .group("u1")]
            for (index, owner) in owners.enumerated() {
                #expect(try await store.write { try $0.things.insertThingOwner(thingID: "th.b", owner: owner, now: 20) })
                // Ownership exists: added once.
                #expect(
                    try await store.write { try $0.things.insertThingOwner(thingID: "th.b", owner: owner, now: 21) } == false,
                    "\(index)"
                )
            }
            #expect(try await store.read { try $0.things.thingOwners(thingID: "th.b") } == owners)
            #expect(try await store.read { try $0.things.thingOwners(thingID: "th.a") } == [])
            #expect(try await store.read { try $0.things.thingOwners(thingID: "th.x\u{0}") } == [])
            // An owner of a thing that does not exist is refused.
            await #expect(throws: (any Error).self) {
                try await store.write { try $0.things.insertThingOwner(thingID: "th.none", owner: .user("u1"), now: 20) }
            }

            // Ownership not found: false.
            #expect(try await store.write { try $0.things.deleteThingOwner(thingID: "th.b", owner: .user("g1")) } == false)
            #expect(try await store.write { try $0.things.deleteThingOwner(thingID: "th.a", owner: .user("u1")) } == false)
            #expect(try await store.write { try $0.things.deleteThingOwner(thingID: "th.b", owner: .user("u\u{0}")) } == false)
            #expect(try await store.write { try $0.things.deleteThingOwner(thingID: "th.b", owner: .group("g1")) })
            #expect(try await store.write { try $0.things.deleteThingOwner(thingID: "th.b", owner: .group("g1")) } == false)
            #expect(
                try await store.read { try $0.things.thingOwners(thingID: "th.b") } == [.user("u2"), .user("u1"), .group("u1")]
            )
            // Re-added, it comes last.
            #expect(try await store.write { try $0.things.insertThingOwner(thingID: "th.b", owner: .group("g1"), now: 30) })
            #expect(try await store.read { try $0.things.thingOwners(thingID: "th.b") }.last == .group("g1"))
        }
    }

    @Test(arguments: Engine.available)
    func thingsOwnedByAndOwnershipsOfADeletedOwner(engine: Engine) async throws {
        try await engine.withThingStore { store in
            for id in ["th.c", "th.a", "th.b", "th.d"] {
                try await store.write { try $0.things.insertThing(try Self.thing(id)) }
            }
            try await store.write { tx in
                for (thing, owner) in [
                    ("th.c", ThingOwner.user("u1")), ("th.a", .user("u1")), ("th.b", .group("g1")),
                    ("th.a", .group("g1")), ("th.d", .user("u2")), ("th.b", .user("u1")),
                ] {
                    _ = try tx.things.insertThingOwner(thingID: thing, owner: owner, now: 20)
                }
            }
            let ids = { @Sendable (owners: [ThingOwner]) in
                try await store.read { try $0.things.things(ownedBy: owners).map(\.thingID) }
            }
            #expect(try await ids([.user("u1")]) == ["th.a", "th.b", "th.c"])
            #expect(try await ids([.group("g1")]) == ["th.a", "th.b"])
            #expect(try await ids([.user("u1"), .group("g1"), .user("u2")]) == ["th.a", "th.b", "th.c", "th.d"])
            #expect(try await ids([.user("g1"), .group("u1"), .user("u1\u{0}")]) == [])
            #expect(try await ids([]) == [])
            let full = try await store.read { try $0.things.things(ownedBy: [.user("u2")]) }
            #expect(full == [try Self.thing("th.d")])

            // The things a deleted owner had, in the order it got them.
            #expect(try await store.write { try $0.things.deleteThingOwnerships(of: .user("u1")) } == ["th.c", "th.a", "th.b"])
            #expect(try await store.write { try $0.things.deleteThingOwnerships(of: .user("u1")) } == [])
            #expect(try await store.write { try $0.things.deleteThingOwnerships(of: .user("g1")) } == [])
            #expect(try await ids([.user("u1")]) == [])
            #expect(try await store.read { try $0.things.thingOwners(thingID: "th.a") } == [.group("g1")])
            #expect(try await store.write { try $0.things.deleteThingOwnerships(of: .group("g1")) } == ["th.b", "th.a"])
            #expect(try await store.read { try $0.things.thingOwners(thingID: "th.d") } == [.user("u2")])
        }
    }

    // MARK: - Commands

    @Test(arguments: Engine.available)
    func commandsAreStoredPagedNewestFirstAndDelivered(engine: Engine) async throws {
        try await engine.withThingStore { store in
            try await store.write { try $0.things.insertThing(try Self.thing("th.1")) }
            try await store.write { try $0.things.insertThing(try Self.thing("th.2")) }
            let full = try Self.command("c1", full: true)
            try await store.write { try $0.things.insertCommand(full) }
            #expect(try await store.read { try $0.things.command(thingID: "th.1", commandID: "c1") } == full)
            #expect(try await store.write { try $0.things.command(thingID: "th.1", commandID: "c1") } == full)
            // Not found: another thing's, unknown, or a key no row can hold.
            #expect(try await store.read { try $0.things.command(thingID: "th.2", commandID: "c1") } == nil)
            #expect(try await store.read { try $0.things.command(thingID: "th.1", commandID: "c9") } == nil)
            #expect(try await store.read { try $0.things.command(thingID: "th.1", commandID: "c1\u{0}") } == nil)
            // A taken command id, or a thing that does not exist, is refused.
            let sameID = try Self.command("c1", thingID: "th.2")
            await #expect(throws: (any Error).self) { try await store.write { try $0.things.insertCommand(sameID) } }
            let noThing = try Self.command("c0", thingID: "th.9")
            await #expect(throws: (any Error).self) { try await store.write { try $0.things.insertCommand(noThing) } }

            for index in 2...5 {
                let command = try Self.command("c\(index)", at: Int64(20 + index))
                try await store.write { try $0.things.insertCommand(command) }
            }
            try await store.write { try $0.things.insertCommand(try Self.command("other", thingID: "th.2")) }
            let page = try await store.read { try $0.things.commands(thingID: "th.1", before: nil, limit: 3) }
            #expect(page.map(\.command.commandID) == ["c5", "c4", "c3"])
            #expect(page.map(\.position) == page.map(\.position).sorted(by: >))
            let rest = try await store.read { [page] in
                try $0.things.commands(thingID: "th.1", before: page[2].position, limit: 3)
            }
            #expect(rest.map(\.command.commandID) == ["c2", "c1"])
            #expect(rest.last?.command == full)
            #expect(try await store.read { try $0.things.commands(thingID: "th.1", before: 0, limit: 3) }.isEmpty)
            #expect(try await store.read { try $0.things.commands(thingID: "th.9", before: nil, limit: 3) }.isEmpty)

            // Only SENDING commands of that thing move, each once.
            let moved = try await store.write {
                try $0.things.markCommandsDelivered(thingID: "th.1", commandIDs: ["c2", "c3", "c3", "other", "c9"], now: 40)
            }
            #expect(moved == 2)
            let again = try await store.write {
                try $0.things.markCommandsDelivered(thingID: "th.1", commandIDs: ["c2"], now: 41)
            }
            #expect(again == 0)
            let noIDs = try await store.write { try $0.things.markCommandsDelivered(thingID: "th.1", commandIDs: [], now: 41) }
            #expect(noIDs == 0)
            let c3 = try #require(try await store.read { try $0.things.command(thingID: "th.1", commandID: "c3") })
            #expect(c3.state == .delivered)
            #expect(c3.modified == 40)
            #expect(try await store.read { try $0.things.command(thingID: "th.2", commandID: "other") }?.state == .sending)
            #expect(try await store.read { try $0.things.command(thingID: "th.1", commandID: "c4") }?.state == .sending)
        }
    }

    @Test(arguments: Engine.available)
    func pendingAndFiredCommandsAreCountedAlike(engine: Engine) async throws {
        try await engine.withThingStore { store in
            try await store.write { try $0.things.insertThing(try Self.thing("th.1")) }
            try await store.write { try $0.things.insertThing(try Self.thing("th.2")) }
            // th.1: sent ones at 20-22 (one DONE), fired ones (`full`) at 30-33 (one INCOMPLETE); th.2: one of each.
            for (id, state, full, time) in [
                ("s1", CommandState.sending, false, Int64(20)), ("s2", .delivered, false, 21), ("s3", .done, false, 22),
                ("f1", .sending, true, 30), ("f2", .delivered, true, 31), ("f3", .incomplete, true, 32), ("f4", .sending, true, 33),
            ] {
                let command = try Self.command(id, state: state, full: full, at: time)
                try await store.write { try $0.things.insertCommand(command) }
            }
            for (id, full) in [("o1", false), ("o2", true)] {
                let command = try Self.command(id, thingID: "th.2", full: full, at: 40)
                try await store.write { try $0.things.insertCommand(command) }
            }
            #expect(try await store.read { try $0.things.pendingCommandCount(thingID: "th.1") } == 5)
            #expect(try await store.write { try $0.things.pendingCommandCount(thingID: "th.1") } == 5)
            #expect(try await store.read { try $0.things.pendingCommandCount(thingID: "th.2") } == 2)
            #expect(try await store.read { try $0.things.pendingCommandCount(thingID: "th.9") } == 0)
            #expect(try await store.read { try $0.things.pendingCommandCount(thingID: "th.1\u{0}") } == 0)
            // Fired ones (finished or not) created at `since` or later.
            #expect(try await store.read { try $0.things.triggerFiringCount(thingID: "th.1", since: 0) } == 4)
            #expect(try await store.read { try $0.things.triggerFiringCount(thingID: "th.1", since: 31) } == 3)
            #expect(try await store.write { try $0.things.triggerFiringCount(thingID: "th.1", since: 33) } == 1)
            #expect(try await store.read { try $0.things.triggerFiringCount(thingID: "th.1", since: 34) } == 0)
            #expect(try await store.read { try $0.things.triggerFiringCount(thingID: "th.2", since: 0) } == 1)
            #expect(try await store.read { try $0.things.triggerFiringCount(thingID: "th.1\u{0}", since: 0) } == 0)
            // Posting results frees a pending one.
            _ = try await store.write { try Self.putResults($0, thingID: "th.1", commandID: "s1", succeeded: true, now: 50) }
            #expect(try await store.read { try $0.things.pendingCommandCount(thingID: "th.1") } == 4)
        }
    }

    @Test(arguments: Engine.available)
    func resultsArePostedOnceAndMissingOnesAreErrors(engine: Engine) async throws {
        try await engine.withThingStore { store in
            try await store.write { try $0.things.insertThing(try Self.thing("th.1")) }
            try await store.write { try $0.things.insertCommand(try Self.command("c1", state: .delivered, full: true)) }
            try await store.write { try $0.things.insertCommand(try Self.command("c2")) }
            let done = try await store.write {
                try Self.putResults($0, thingID: "th.1", commandID: "c1", succeeded: true, now: 50)
            }
            #expect(done.state == .done)
            #expect(try await store.read { try $0.things.command(thingID: "th.1", commandID: "c1") } == done)
            let incomplete = try await store.write {
                try Self.putResults($0, thingID: "th.1", commandID: "c2", succeeded: false, now: 51)
            }
            let stored = try await store.read { try $0.things.command(thingID: "th.1", commandID: "c2") }
            #expect(stored == incomplete)
            #expect(stored?.state == .incomplete)
            #expect(stored?.actionResults?.count == 2)

            await Self.expectError(.commandAlreadyDone) {
                _ = try await store.write {
                    try Self.putResults($0, thingID: "th.1", commandID: "c1", succeeded: false, now: 60)
                }
            }
            await Self.expectError(.commandNotFound) {
                _ = try await store.write {
                    try Self.putResults($0, thingID: "th.1", commandID: "c9", succeeded: true, now: 60)
                }
            }
            await Self.expectError(.thingNotFound) {
                _ = try await store.write {
                    try Self.putResults($0, thingID: "th.9", commandID: "c1", succeeded: true, now: 60)
                }
            }
            // The refused posts changed nothing.
            #expect(try await store.read { try $0.things.command(thingID: "th.1", commandID: "c1") } == done)
        }
    }

    // MARK: - States

    @Test(arguments: Engine.available)
    func statesAreKeptInOrderAndPagedByTime(engine: Engine) async throws {
        try await engine.withThingStore { store in
            try await store.write { try $0.things.insertThing(try Self.thing("th.1")) }
            try await store.write { try $0.things.insertThing(try Self.thing("th.2")) }
            // No state yet (the service's stateNotFound).
            #expect(try await store.read { try $0.things.latestState(thingID: "th.1") } == nil)
            let none = try await store.read { try $0.things.states(thingID: "th.1", from: 0, to: 100, after: nil, limit: 9) }
            #expect(none.isEmpty)
            let states = try [
                Self.state(#"{"power": true, "b": 1}"#, at: 30),
                Self.state(#"{"power": false, "s": "x\u0000y"}"#, at: 10),
                Self.state(#"{"power": true, "nested": {"a": [1, 2]}}"#, at: 20),
                Self.state(#"{}"#, at: 40),
            ]
            var ids: [Int64] = []
            for state in states { ids.append(try await store.write { try $0.things.insertState(thingID: "th.1", state: state, uploaded: 1) }) }
            _ = try await store.write { try $0.things.insertState(thingID: "th.2", state: try Self.state(#"{"o": 1}"#, at: 25), uploaded: 1) }
            await #expect(throws: (any Error).self) {
                try await store.write { try $0.things.insertState(thingID: "th.9", state: try Self.state("{}", at: 1), uploaded: 1) }
            }
            // The latest is the last stored, whatever its timestamp.
            #expect(try await store.read { try $0.things.latestState(thingID: "th.1") } == states[3])
            #expect(try await store.read { try $0.things.latestState(thingID: "th.2") }?.timestamp == 25)
            // The latest but a given row (an upload's triggers compare with the state before theirs); nil is none.
            let (last, second) = (ids[3], ids[1])
            #expect(try await store.read { try $0.things.latestState(thingID: "th.1", excluding: last) } == states[2])
            #expect(try await store.read { try $0.things.latestState(thingID: "th.1", excluding: second) } == states[3])
            #expect(try await store.read { try $0.things.latestState(thingID: "th.1", excluding: nil) } == states[3])

            let inRange = try await store.read {
                try $0.things.states(thingID: "th.1", from: 15, to: 35, after: nil, limit: 5)
            }
            #expect(inRange.map(\.state) == [states[0], states[2]])
            let all = try await store.read { try $0.things.states(thingID: "th.1", from: 0, to: 100, after: nil, limit: 3) }
            #expect(all.map(\.state) == Array(states.prefix(3)))
            #expect(all.map(\.position) == all.map(\.position).sorted())
            let next = try await store.read { [all] in
                try $0.things.states(thingID: "th.1", from: 0, to: 100, after: all[2].position, limit: 3)
            }
            #expect(next.map(\.state) == [states[3]])
            let exact = try await store.read { try $0.things.states(thingID: "th.1", from: 10, to: 10, after: nil, limit: 5) }
            #expect(exact.map(\.state.timestamp) == [10])
            #expect(exact.first?.state == states[1])
        }
    }

    @Test(arguments: Engine.available)
    func statesArePrunedByCountAndAgeButTheLatestStays(engine: Engine) async throws {
        try await engine.withThingStore { store in
            try await store.write { try $0.things.insertThing(try Self.thing("th.1")) }
            try await store.write { try $0.things.insertThing(try Self.thing("th.2")) }
            var inserted: [Int64] = []
            for time in Int64(1)...10 {
                let state = try Self.state(#"{"n": \#(time)}"#, at: time * 100)
                inserted.append(try await store.write { try $0.things.insertState(thingID: "th.1", state: state, uploaded: time * 100) })
            }
            let ids = inserted
            _ = try await store.write { try $0.things.insertState(thingID: "th.2", state: try Self.state(#"{"o": 1}"#, at: 1), uploaded: 1) }
            #expect(ids == ids.sorted() && Set(ids).count == 10)
            #expect(try await store.read { try $0.things.state(id: ids[4], thingID: "th.1") } == (try Self.json(#"{"n": 5}"#)))

            // By count: the newest 6 stay.
            #expect(try await store.write { try $0.things.pruneStates(thingID: "th.1", keepCount: 6, before: 0) } == 4)
            let kept = try await store.read { try $0.things.states(thingID: "th.1", from: 0, to: .max, after: nil, limit: 99) }
            #expect(kept.map(\.position) == Array(ids.suffix(6)))
            #expect(try await store.read { try $0.things.state(id: ids[0], thingID: "th.1") } == nil)
            #expect(try await store.read { try $0.things.state(id: ids[9], thingID: "th.2") } == nil, "another thing's row")
            // By age: timestamps before 800 go (500, 600, 700).
            #expect(try await store.write { try $0.things.pruneStates(thingID: "th.1", keepCount: 100, before: 800) } == 3)
            // The latest stays whatever its age; another thing's states are untouched.
            #expect(try await store.write { try $0.things.pruneStates(thingID: "th.1", keepCount: 1, before: .max) } == 2)
            let last = try await store.read { try $0.things.states(thingID: "th.1", from: 0, to: .max, after: nil, limit: 99) }
            #expect(last.map(\.position) == [ids[9]])
            #expect(try await store.read { try $0.things.latestState(thingID: "th.1") }?.timestamp == 1000)
            #expect(try await store.read { try $0.things.latestState(thingID: "th.2") }?.timestamp == 1)
        }
    }

    // MARK: - Installations

    @Test(arguments: Engine.available)
    func installationsAreFoundListedAndDeleted(engine: Engine) async throws {
        try await engine.withThingStore { store in
            let installations = [
                Installation(
                    installationID: "in.b",
                    userID: "u1",
                    deviceType: "ANDROID",
                    registrationID: "reg\u{0}1",
                    development: true,
                    created: 20
                ),
                Installation(
                    installationID: "in.a",
                    userID: "u1",
                    deviceType: "MQTT",
                    registrationID: "mqtt.1",
                    development: false,
                    created: 20
                ),
                Installation(
                    installationID: "in.0",
                    userID: "u1",
                    deviceType: "IOS",
                    registrationID: nil,
                    development: false,
                    created: 10
                ),
                Installation(
                    installationID: "in.c",
                    userID: "u2",
                    deviceType: "ANDROID",
                    registrationID: "reg\u{0}1",
                    development: false,
                    created: 5
                ),
            ]
            for installation in installations { try await store.write { try $0.things.insertInstallation(installation) } }
            let taken = installations[0]
            await #expect(throws: (any Error).self) { try await store.write { try $0.things.insertInstallation(taken) } }
            #expect(try await store.read { try $0.things.installation(id: "in.b") } == installations[0])
            #expect(try await store.read { try $0.things.installation(id: "in.0") } == installations[2])
            #expect(try await store.read { try $0.things.installation(id: "in.x") } == nil)
            #expect(try await store.read { try $0.things.installation(id: "in.b\u{0}") } == nil)
            #expect(
                try await store.read {
                    try $0.things.installation(userID: "u1", deviceType: "ANDROID", registrationID: "reg\u{0}1")
                } == installations[0]
            )
            #expect(
                try await store.read {
                    try $0.things.installation(userID: "u2", deviceType: "ANDROID", registrationID: "reg\u{0}1")
                } == installations[3]
            )
            for (user, type, registration) in [
                ("u1", "ANDROID", "reg"), ("u1", "IOS", "reg\u{0}1"), ("u3", "ANDROID", "reg\u{0}1"), ("u1", "IOS", ""),
            ] {
                #expect(
                    try await store.read {
                        try $0.things.installation(userID: user, deviceType: type, registrationID: registration)
                    } == nil
                )
            }
            // Oldest first, then by id.
            #expect(
                try await store.read { try $0.things.installations(userID: "u1") }.map(\.installationID)
                    == ["in.0", "in.a", "in.b"]
            )
            #expect(try await store.read { try $0.things.installations(userID: "u9") } == [])
            #expect(try await store.write { try $0.things.deleteInstallation(id: "in.a") })
            #expect(try await store.write { try $0.things.deleteInstallation(id: "in.a") } == false)
            #expect(try await store.write { try $0.things.deleteInstallation(id: "in.\u{0}") } == false)
            try await store.write { try $0.things.deleteInstallations(userID: "u1") }
            try await store.write { try $0.things.deleteInstallations(userID: "u9") }
            #expect(try await store.read { try $0.things.installations(userID: "u1") } == [])
            #expect(try await store.read { try $0.things.installations(userID: "u2") } == [installations[3]])
        }
    }

    /// Two installations of u1 created at once (ids in byte order: "in.B" before "in.a"), one earlier, one
    /// later, and one of u2.
    private static func insertFiveInstallations(_ store: ThingRecordsStore) async throws {
        let rows: [(String, String, Int64)] = [
            ("in.a", "u1", 20), ("in.B", "u1", 20), ("in.z", "u1", 10), ("in.c", "u1", 30), ("in.d", "u2", 15),
        ]
        for (id, user, created) in rows {
            try await store.write {
                try $0.things.insertInstallation(
                    Installation(installationID: id, userID: user, deviceType: "IOS", registrationID: nil, development: false, created: created)
                )
            }
        }
    }

    @Test(arguments: Engine.available)
    func installationsAreCounted(engine: Engine) async throws {
        try await engine.withThingStore { store in
            try await Self.insertFiveInstallations(store)
            #expect(try await store.write { try $0.things.installationCount(userID: "u1") } == 4)
            #expect(try await store.read { try $0.things.installationCount(userID: "u2") } == 1)
            #expect(try await store.read { try $0.things.installationCount(userID: "u9") } == 0)
            #expect(try await store.read { try $0.things.installationCount(userID: "u1\u{0}") } == 0)
        }
    }

    @Test(arguments: Engine.available)
    func installationsArePaged(engine: Engine) async throws {
        try await engine.withThingStore { store in
            try await Self.insertFiveInstallations(store)
            let all = try await store.read { try $0.things.installations(userID: "u1", after: nil, limit: 10) }.map(\.installationID)
            #expect(all == ["in.z", "in.B", "in.a", "in.c"])
            #expect(all == (try await store.read { try $0.things.installations(userID: "u1") }.map(\.installationID)))
            #expect(
                try await store.read { try $0.things.installations(userID: "u1", after: nil, limit: 2) }.map(\.installationID) == ["in.z", "in.B"]
            )
            let afterB = try await store.read { try $0.things.installations(userID: "u1", after: (20, "in.B"), limit: 10) }
            #expect(afterB.map(\.installationID) == ["in.a", "in.c"])
            // A position that is no installation (deleted, or another user's) still pages by time, then id.
            #expect(
                try await store.read { try $0.things.installations(userID: "u1", after: (15, "in.d"), limit: 10) }.map(\.installationID) == [
                    "in.B", "in.a", "in.c",
                ]
            )
            #expect(try await store.read { try $0.things.installations(userID: "u1", after: (30, "in.c"), limit: 10) }.isEmpty)
            #expect(
                try await store.read { try $0.things.installations(userID: "u1", after: (20, "in.\u{0}"), limit: 10) }.allSatisfy {
                    $0.userID == "u1"
                }
            )
            #expect(try await store.read { try $0.things.installations(userID: "u2", after: nil, limit: 10) }.map(\.installationID) == ["in.d"])
        }
    }

    // MARK: - Triggers

    static func trigger(_ id: String, thingID: String = "th.1", at time: Int64 = 20) throws -> ThingTrigger {
        ThingTrigger(
            triggerID: id,
            thingID: thingID,
            predicate: try TriggerPredicate.condition(try Self.json(#"{"type": "eq", "field": "power", "value": true}"#)),
            action: .command(try Self.request(issuer: .group("g1"), full: true)),
            enabled: true,
            creator: "u1",
            created: time
        )
    }

    /// A schedule trigger due at `due`.
    static func schedule(_ id: String, thingID: String = "th.1", due: Int64?, enabled: Bool = true) throws -> ThingTrigger {
        ThingTrigger(
            triggerID: id,
            thingID: thingID,
            predicate: try TriggerPredicate(
                json: ["eventSource": "SCHEDULE", "schedule": "*/5 * * * *", "timeZone": "Asia/Tokyo"],
                defaultTimeZone: TimeZone(identifier: "UTC")!
            ),
            action: .notify(parameters: ["room": "hall"]),
            title: "Every five minutes",
            description: "A test",
            enabled: enabled,
            nextFire: due,
            creator: nil,
            created: 10,
            modified: 15
        )
    }

    @Test(arguments: Engine.available)
    func everyPartOfATriggerIsStoredAndUpdated(engine: Engine) async throws {
        try await engine.withThingStore { store in
            try await store.write { try $0.things.insertThing(try Self.thing("th.1")) }
            let schedule = try Self.schedule("tr.s", due: 1_000)
            try await store.write { try $0.things.insertTrigger(schedule) }
            #expect(try await store.read { try $0.things.trigger(thingID: "th.1", triggerID: "tr.s") } == schedule)
            #expect(try await store.read { try $0.things.trigger(thingID: "th.2", triggerID: "tr.s") } == nil)

            // From a schedule that notifies to a state condition that sends a command, and back; who created the
            // trigger and when are not changed by an update.
            var changed = try Self.trigger("tr.s")
            changed.creator = schedule.creator
            changed.created = schedule.created
            changed.predicate = .states(condition: ["type": "all"], triggersWhen: .conditionChanged)
            changed.title = nil
            changed.description = "now a condition"
            changed.nextFire = nil
            changed.modified = 99
            try await store.write { [changed] in try $0.things.updateTrigger(changed) }
            #expect(try await store.read { try $0.things.trigger(thingID: "th.1", triggerID: "tr.s") } == changed)
            try await store.write { try $0.things.updateTrigger(schedule) }
            #expect(try await store.read { try $0.things.triggers(thingID: "th.1") } == [schedule])
        }
    }

    /// Evaluating an upload reads the triggers without a due time, oldest first, with their stored predicate
    /// text and whether they are enabled.
    @Test(arguments: Engine.available)
    func stateTriggerRowsAreTheTriggersWithoutADueTime(engine: Engine) async throws {
        try await engine.withThingStore { store in
            try await store.write { try $0.things.insertThing(try Self.thing("th.1")) }
            let condition = try Self.trigger("tr.c")
            var disabled = try Self.trigger("tr.d")
            disabled.enabled = false
            for trigger in [condition, try Self.schedule("tr.s", due: 1_000), disabled] {
                try await store.write { try $0.things.insertTrigger(trigger) }
            }
            let rows = try await store.read { try $0.things.stateTriggerRows(thingID: "th.1") }
            #expect(rows.map(\.triggerID) == ["tr.c", "tr.d"])
            #expect(rows.map(\.enabled) == [true, false])
            let stored = try rows.map { row in try row.predicate.withUnsafeBytes { try JSONValue(parsing: $0) } }
            #expect(stored.map { try? TriggerPredicate(stored: $0) } == [condition.predicate, disabled.predicate])
            #expect(try await store.read { try $0.things.stateTriggerRows(thingID: "th.2") }.isEmpty)
        }
    }

    /// A thing's trigger revision (what `ThingTriggerSets` keeps compiled triggers by): 0 until its triggers
    /// change, then new with every insert, update and delete of one of them, and with none of the rest (an
    /// upload, a schedule's advance, another thing's triggers, a delete of no trigger); a revision written by a
    /// rolled-back transaction is gone with it.
    @Test(arguments: Engine.available)
    func everyChangeToAThingsTriggersGivesItANewRevision(engine: Engine) async throws {
        try await engine.withThingStore { store in
            try await store.write { tx in
                try tx.things.insertThing(try Self.thing("th.1"))
                try tx.things.insertThing(try Self.thing("th.2"))
            }
            func revision(_ thingID: String = "th.1") async throws -> Int64 {
                try await store.read { try $0.things.triggerRevision(thingID: thingID) }
            }
            #expect(try await revision() == 0)
            #expect(try await revision("th.9") == 0)
            var seen: Set<Int64> = [0]
            func expectNew(_ comment: Comment) async throws {
                let now = try await revision()
                #expect(seen.insert(now).inserted, comment)
            }

            var trigger = try Self.trigger("tr.c")
            try await store.write { [trigger] in try $0.things.insertTrigger(trigger) }
            try await expectNew("an insert")
            try await store.write { try $0.things.insertTrigger(try Self.schedule("tr.s", due: 1_000)) }
            try await expectNew("a schedule's insert")
            trigger.enabled = false
            try await store.write { [trigger] in try $0.things.updateTrigger(trigger) }
            try await expectNew("an update")
            #expect(try await store.write { try $0.things.deleteTrigger(thingID: "th.1", triggerID: "tr.c") })
            try await expectNew("a delete")

            let kept = try await revision()
            #expect(try await store.write { try $0.things.deleteTrigger(thingID: "th.1", triggerID: "tr.c") } == false)
            try await store.write { tx in
                try tx.things.insertState(thingID: "th.1", state: ThingState(state: ["power": true], timestamp: 5), uploaded: 5)
                _ = try tx.things.advanceSchedule(triggerID: "tr.s", from: 1_000, to: 2_000)
                try tx.things.insertTrigger(try Self.trigger("tr.o", thingID: "th.2"))
            }
            #expect(try await revision() == kept, "no change to th.1's triggers")
            #expect(try await revision("th.2") != 0)

            // A rolled-back change leaves the revision as it was.
            await #expect(throws: (any Error).self) {
                try await store.write { tx in
                    try tx.things.insertTrigger(try Self.trigger("tr.r"))
                    throw GuildError(.invalidInput, "roll back")
                }
            }
            #expect(try await revision() == kept)
        }
    }

    @Test(arguments: Engine.available)
    func dueSchedulesAreFoundInDueOrderAndAdvancedOnce(engine: Engine) async throws {
        try await engine.withThingStore { store in
            try await store.write { try $0.things.insertThing(try Self.thing("th.1")) }
            let triggers = [
                try Self.schedule("tr.late", due: 3_000), try Self.schedule("tr.early", due: 1_000),
                try Self.schedule("tr.off", due: 500, enabled: false), try Self.schedule("tr.done", due: nil),
                try Self.trigger("tr.state"),
            ]
            for trigger in triggers { try await store.write { try $0.things.insertTrigger(trigger) } }
            #expect(try await store.read { try $0.things.earliestDue() } == 1_000)
            #expect(try await store.read { try $0.things.dueTriggers(at: 999, limit: 10) }.isEmpty)
            #expect(try await store.read { try $0.things.dueTriggers(at: 3_000, limit: 10) }.map(\.triggerID) == ["tr.early", "tr.late"])
            #expect(try await store.read { try $0.things.dueTriggers(at: 3_000, limit: 1) }.map(\.triggerID) == ["tr.early"])

            // Advanced from the due time it was read with: once.
            #expect(try await store.write { try $0.things.advanceSchedule(triggerID: "tr.early", from: 1_000, to: 2_000) })
            #expect(try await store.write { try $0.things.advanceSchedule(triggerID: "tr.early", from: 1_000, to: 2_000) } == false)
            #expect(try await store.read { try $0.things.trigger(thingID: "th.1", triggerID: "tr.early") }?.nextFire == 2_000)
            // To none: a single time that fired.
            #expect(try await store.write { try $0.things.advanceSchedule(triggerID: "tr.late", from: 3_000, to: nil) })
            #expect(try await store.read { try $0.things.earliestDue() } == 2_000)
            #expect(try await store.read { try $0.things.dueTriggers(at: 10_000, limit: 10) }.map(\.triggerID) == ["tr.early"])
            #expect(try await store.write { try $0.things.advanceSchedule(triggerID: "tr.nothing", from: 1, to: 2) } == false)
        }
    }

    @Test(arguments: Engine.available)
    func firingsArePagedNewestFirstKeptToABoundAndGoWithTheTrigger(engine: Engine) async throws {
        try await engine.withThingStore { store in
            try await store.write { try $0.things.insertThing(try Self.thing("th.1")) }
            for id in ["tr.1", "tr.2"] { try await store.write { try $0.things.insertTrigger(try Self.trigger(id)) } }
            @Sendable func firing(_ trigger: String, at time: Int64) -> TriggerFiring {
                TriggerFiring(
                    triggerID: trigger,
                    thingID: "th.1",
                    firedAt: time,
                    dueAt: time % 2 == 0 ? time - 1 : nil,
                    cause: time % 2 == 0 ? "SCHEDULE" : "STATES",
                    outcome: time % 3 == 0 ? .skipped : .commandSent,
                    commandID: time % 3 == 0 ? nil : "c\(time)",
                    reason: time % 3 == 0 ? "firingRate" : nil
                )
            }
            // Interleaved, each trigger's firings count from 1 on their own.
            var ordinals: [Int64] = []
            for time in Int64(1)...6 {
                ordinals += try await store.write { tx in
                    [try tx.things.insertTriggerFiring(firing("tr.1", at: time)), try tx.things.insertTriggerFiring(firing("tr.2", at: time * 10))]
                }
            }
            #expect(ordinals == [1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6])
            let page = try await store.read { try $0.things.triggerFirings(triggerID: "tr.1", before: nil, limit: 4) }
            #expect(page.map(\.firing) == [6, 5, 4, 3].map { firing("tr.1", at: $0) })
            let rest = try await store.read { try $0.things.triggerFirings(triggerID: "tr.1", before: page[3].position, limit: 4) }
            #expect(rest.map(\.firing) == [2, 1].map { firing("tr.1", at: $0) })

            try await store.write { try $0.things.pruneTriggerFirings(triggerID: "tr.1", keep: 2) }
            #expect(try await store.read { try $0.things.triggerFirings(triggerID: "tr.1", before: nil, limit: 10) }.map(\.firing.firedAt) == [6, 5])
            // Pruning does not change the count.
            #expect(try await store.write { try $0.things.insertTriggerFiring(firing("tr.1", at: 7)) } == 7)
            try await store.write { try $0.things.pruneTriggerFirings(triggerID: "tr.1", keep: 2) }
            #expect(try await store.read { try $0.things.triggerFirings(triggerID: "tr.2", before: nil, limit: 10) }.count == 6)

            #expect(try await store.write { try $0.things.deleteTrigger(thingID: "th.1", triggerID: "tr.2") })
            #expect(try await store.read { try $0.things.triggerFirings(triggerID: "tr.2", before: nil, limit: 10) }.isEmpty)
        }
    }

    @Test(arguments: Engine.available)
    func triggersAreListedInOrderUpdatedAndDeleted(engine: Engine) async throws {
        try await engine.withThingStore { store in
            try await store.write { try $0.things.insertThing(try Self.thing("th.1")) }
            try await store.write { try $0.things.insertThing(try Self.thing("th.2")) }
            var triggers = [try Self.trigger("tr.b", at: 30), try Self.trigger("tr.a", at: 10)]
            triggers[1].creator = nil
            triggers[1].action = .command(try Self.request(issuer: .user("u1")))
            for trigger in triggers { try await store.write { try $0.things.insertTrigger(trigger) } }
            let other = try Self.trigger("tr.c", thingID: "th.2")
            try await store.write { try $0.things.insertTrigger(other) }
            let taken = try Self.trigger("tr.b", thingID: "th.2")
            await #expect(throws: (any Error).self) { try await store.write { try $0.things.insertTrigger(taken) } }
            #expect(try await store.read { try $0.things.triggers(thingID: "th.1") } == triggers)
            #expect(try await store.read { try $0.things.triggers(thingID: "th.9") } == [])

            var changed = triggers[0]
            changed.enabled = false
            changed.creator = "someone else"
            try await store.write { [changed] in try $0.things.updateTrigger(changed) }
            var expected = triggers[0]
            expected.enabled = false
            #expect(try await store.read { try $0.things.triggers(thingID: "th.1") }.first == expected)

            #expect(try await store.write { try $0.things.deleteTrigger(thingID: "th.2", triggerID: "tr.b") } == false)
            #expect(try await store.write { try $0.things.deleteTrigger(thingID: "th.1", triggerID: "tr.b") })
            #expect(try await store.write { try $0.things.deleteTrigger(thingID: "th.1", triggerID: "tr.b") } == false)
            #expect(try await store.read { try $0.things.triggers(thingID: "th.1") } == [triggers[1]])
            #expect(try await store.read { try $0.things.triggers(thingID: "th.2") } == [other])
        }
    }

    // MARK: - Invariants

    @Test(arguments: Engine.available)
    func invariantViolationsAreFoundAndTheSame(engine: Engine) async throws {
        try await engine.withThingStore { store in
            #expect(try await store.read { try $0.things.thingInvariantViolations() } == [])
            let user = UserRecordsConformanceTests.user("u1", username: "alice")
            let session = UserRecordsConformanceTests.session()
            try await store.write { tx in
                try tx.users.insertUser(user, passwordHash: "h", session: session)
                try tx.things.insertThing(try Self.thing("th.1"))
                _ = try tx.things.insertThingOwner(thingID: "th.1", owner: .user("u1"), now: 20)
            }
            #expect(try await store.read { try $0.things.thingInvariantViolations() } == [])
            try await store.write { tx in
                _ = try tx.things.insertThingOwner(thingID: "th.1", owner: .user("ghost"), now: 20)
                _ = try tx.things.insertThingOwner(thingID: "th.1", owner: .group("no-group"), now: 20)
                try tx.things.insertCommand(try Self.command("c1", state: .done))
                try tx.things.insertState(thingID: "th.1", state: try Self.state("{}", at: 1), uploaded: 1)
            }
            #expect(
                try await store.read { try $0.things.thingInvariantViolations() } == [
                    "2 thing ownerships name a user or group that does not exist",
                    "1 finished commands have no results",
                    "1 things have states but are marked as having none",
                ]
            )
            try await store.write { tx in
                _ = try tx.things.deleteThingOwnerships(of: .user("ghost"))
                _ = try tx.things.deleteThingOwnerships(of: .group("no-group"))
                try tx.things.markThingHasState(id: "th.1")
                var command = try #require(try tx.things.command(thingID: "th.1", commandID: "c1"))
                command.actionResults = []
                try tx.things.updateCommand(command)
            }
            #expect(try await store.read { try $0.things.thingInvariantViolations() } == [])
        }
    }

    // MARK: - Several hosts (PostgreSQL)

    /// Runs `body` with a migrated database, a reader and two writers on it, as two hosts would have.
    static func withTwoHosts(
        _ body: (_ hosts: [PostgresWriter], _ reader: BlockingConnection) async throws -> Void
    ) async throws {
        try await TestPostgres.withHosts(2, body)
    }

    /// Runs `work` on both hosts at once; returns each host's outcome.
    static func race<T: Sendable>(
        _ hosts: [PostgresWriter],
        _ work: @escaping @Sendable (_ host: Int, _ tx: PostgresTransaction) throws -> T
    ) async -> [Result<T, any Error>] {
        await withTaskGroup(of: (Int, Result<T, any Error>).self) { group in
            for host in 0..<2 {
                group.addTask {
                    do {
                        let value = try await hosts[host].write { context in
                            try work(host, PostgresTransaction(context))
                        }
                        return (host, .success(value))
                    } catch {
                        return (host, .failure(error))
                    }
                }
            }
            let outcomes = await group.reduce(into: [Int: Result<T, any Error>]()) { $0[$1.0] = $1.1 }
            return [outcomes[0]!, outcomes[1]!]
        }
    }

    /// Two hosts post the same command's results at the same moment: every time, exactly one succeeds and the
    /// other is `commandAlreadyDone`, and the stored results are the winner's. Each post keeps its transaction
    /// open a moment after reading the command, so the other host's post meets it uncommitted.
    @Test(.enabled(if: TestPostgres.isConfigured, "needs the throwaway PostgreSQL that scripts/test starts"))
    func aCommandIsCompletedOnceAcrossHosts() async throws {
        try await Self.withTwoHosts { hosts, reader in
            let store = PostgresUserRecordsStore(writer: hosts[0], reader: reader)
            let things = ThingRecordsStore(base: store)
            try await things.write { try $0.things.insertThing(try Self.thing("th.1")) }
            for round in 0..<20 {
                let commandID = "c\(round)"
                try await things.write { try $0.things.insertCommand(try Self.command(commandID, state: .delivered)) }
                let outcomes = await Self.race(hosts) { host, tx in
                    guard var command = try tx.things.command(thingID: "th.1", commandID: commandID) else {
                        throw GuildError(.commandNotFound, "no command \(commandID)")
                    }
                    try tx.connection.execute("SELECT pg_sleep(0.02)")
                    guard !command.state.isFinished else {
                        throw GuildError(.commandAlreadyDone, "command \(commandID) already has its results")
                    }
                    command.actionResults = try Self.json(#"[{"host": {"succeeded": true, "data": \#(host)}}]"#)
                    command.state = host == 0 ? .done : .incomplete
                    command.modified = Int64(100 + host)
                    try tx.things.updateCommand(command)
                    return command
                }
                let winners = outcomes.indices.filter { (try? outcomes[$0].get()) != nil }
                try #require(winners.count == 1, "round \(round): \(outcomes)")
                let winner = winners[0]
                #expect(throws: GuildError(.commandAlreadyDone, "")) { try outcomes[1 - winner].get() }
                let stored = try await things.read { try $0.things.command(thingID: "th.1", commandID: commandID) }
                #expect(stored == (try outcomes[winner].get()), "round \(round)")
            }
        }
    }

    /// Two hosts onboard the same new thing at the same moment, as `ThingService.onboard` does over the records:
    /// there is one thing. With the same password hash both succeed and both owners are added; with different
    /// ones (each host hashed the password itself) the second is `invalidCredentials`, as on SQLite's single
    /// writer.
    @Test(.enabled(if: TestPostgres.isConfigured, "needs the throwaway PostgreSQL that scripts/test starts"))
    func onboardingTheSameThingAcrossHostsMakesOneThing() async throws {
        try await Self.withTwoHosts { hosts, reader in
            let things = ThingRecordsStore(base: PostgresUserRecordsStore(writer: hosts[0], reader: reader))
            for round in 0..<20 {
                let vendor = "vendor-\(round)"
                let sameHash = round.isMultiple(of: 2)
                let outcomes = await Self.race(hosts) { host, tx in
                    let hash = sameHash ? "hash" : "hash-\(host)"
                    var thing: Thing
                    if let known = try tx.things.thing(vendorThingID: vendor) {
                        guard known.passwordHash == hash else {
                            throw GuildError(.invalidCredentials, "wrong vendorThingID or thing password")
                        }
                        thing = known
                    } else {
                        thing = try Self.thing("th.\(round).\(host)", vendor: vendor)
                        thing.passwordHash = hash
                        try tx.things.insertThing(thing)
                        try tx.connection.execute("SELECT pg_sleep(0.02)")
                    }
                    try tx.things.insertThingToken(hash: Token.generate().hash, thingID: thing.thingID, now: 20)
                    _ = try tx.things.insertThingOwner(thingID: thing.thingID, owner: .user("u\(host)"), now: 20)
                    return thing.thingID
                }
                let stored = try #require(
                    try await things.read { try $0.things.thing(vendorThingID: vendor) },
                    "round \(round): \(outcomes)"
                )
                let ids = outcomes.compactMap { try? $0.get() }
                let owners = try await things.read { try $0.things.thingOwners(thingID: stored.thingID) }
                if sameHash {
                    #expect(ids == [stored.thingID, stored.thingID], "round \(round): \(outcomes)")
                    #expect(Set(owners) == [.user("u0"), .user("u1")], "round \(round)")
                } else {
                    #expect(ids == [stored.thingID], "round \(round): \(outcomes)")
                    #expect(owners.count == 1, "round \(round)")
                    let loser = outcomes.first { (try? $0.get()) == nil }
                    #expect(throws: GuildError(.invalidCredentials, "")) { try loser?.get() }
                }
                let count = try await TestPostgres.blocking {
                    try reader.query("SELECT count(*) FROM thing WHERE vendor_thing_id = \(vendor)").first?
                        .decode(Int64.self)
                }
                #expect(count == 1, "round \(round)")
            }
        }
    }

    /// A thing event records whom it names, as SQLite's store does: principals (`installation:<id>` for a
    /// command's result) and owner groups; replay shows it to them and to the members of those groups at the time.
    @Test(.enabled(if: TestPostgres.isConfigured, "needs the throwaway PostgreSQL that scripts/test starts"))
    func thingEventsRecordTheirAudienceForReplay() async throws {
        try await Self.withTwoHosts { hosts, reader in
            let owners = ThingEvent(
                kind: .thingOwnerAdded,
                thingID: "th.1",
                time: 10,
                audience: .owners([.user("u1"), .group("g1"), .user("u1")], plus: ["th.1"]),
                members: try Self.json(#"{"owner": "user:u1"}"#)
            )
            let result = ThingEvent(
                kind: .commandResult,
                thingID: "th.1",
                time: 11,
                audience: ThingAudience(installations: ["i1", "i2"], installationUsers: ["u1"]),
                members: try Self.json(#"{"commandID": "c1"}"#)
            )
            try await hosts[1].write { context in
                let tx = PostgresTransaction(context)
                try tx.append(owners)
                try tx.append(result)
            }
            // The log's last two events (what `append` returns names an event inside its transaction only).
            let head = try await TestPostgres.blocking { try PostgresEventLog.head(on: reader) }
            let seqs = [head - 1, head]
            let readers = try await TestPostgres.blocking {
                try reader.query("SELECT seq, principal FROM thing_event_reader ORDER BY seq, principal")
                    .map { try $0.decode((Int64, String).self) }
            }
            #expect(readers.map(\.0) == [seqs[0], seqs[0], seqs[1], seqs[1]])
            #expect(readers.map(\.1) == ["th.1", "u1", "installation:i1", "installation:i2"])
            let groups = try await TestPostgres.blocking {
                try reader.query("SELECT seq, group_id FROM thing_event_group")
                    .map { try $0.decode((Int64, String).self) }
            }
            #expect(groups.map(\.0) == [seqs[0]])
            #expect(groups.map(\.1) == ["g1"])

            _ = try await TestPostgres.blocking {
                try reader.execute(
                    """
                    INSERT INTO membership_history (group_id, user_id, from_seq, to_seq)
                    VALUES ('g1', 'member', \(seqs[0]), NULL), ('g1', 'former', 0, \(seqs[0] - 1))
                    """
                )
            }
            let replay = { @Sendable (user: String, installation: String?) in
                try await TestPostgres.blocking {
                    try ThingPostgresEventArea.replayable(by: user, installationID: installation, on: reader)
                }
            }
            #expect(try await replay("u1", nil) == [seqs[0]])
            #expect(try await replay("th.1", nil) == [seqs[0]])
            #expect(try await replay("u1", "i2") == seqs)
            #expect(try await replay("member", nil) == [seqs[0]])
            #expect(try await replay("former", nil) == [])
            #expect(try await replay("u2", "i3") == [])
        }
    }
}
