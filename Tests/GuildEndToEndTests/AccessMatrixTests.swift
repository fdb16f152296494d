import Foundation
import GuildClient
import GuildJSON
import GuildProtocol
import GuildTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Every method of the contract × every principal, through the real daemon's socket.
///
/// The principals: no session, a user (acting on their own account), another user (acting on that user's
/// account), a group member, the group's owner (all five from one process running as uid 65534, one connection
/// each), root, and a uid passed with `--admin-uid` (each from its own process; without a session except in a few
/// cells at the end). Each cell's expectation is derived from the method's declared access (`x-auth`: `anyone`,
/// `session`, `principal`, `admin`) and written out by hand only where the rule is finer (``Row/finer``). The rows must cover
/// exactly the methods of the live `rpc.discover` document, with the same `x-auth`, so a method added without a
/// row fails the test.
///
/// Every call gets valid params and a fixture of its own (a fresh user as its subject, a fresh group where it
/// acts on one), so that "allowed" means the call went through access control into the method and did what it
/// does. Session principals bind their user at the start of every cell (`user.login`, in the cell's batch);
/// principals without a session must still have none after each cell (`session.whoami`).
///
/// The test walks its whole matrix through one daemon: the slowest of the end-to-end tests under load (`.endToEnd`).
@Suite(.endToEnd)
struct AccessMatrixTests {
    /// Who makes a call.
    enum Principal: String, CaseIterable, Sendable {
        case anonymous, user, otherUser, member, owner, root, adminUID

        /// Whether the peer has admin rights (from its uid only).
        var isAdmin: Bool { self == .root || self == .adminUID }
        /// The peer's uid.
        var uid: Int {
            switch self {
            case .root: 0
            case .adminUID: AccessMatrixTests.adminUID
            default: 65534
            }
        }
    }

    /// A uid given to the daemon with `--admin-uid`.
    static let adminUID = 65533

    /// The group a cell's call acts on, made fresh for that cell by root.
    enum Fixture: Sendable {
        /// None.
        case none
        /// A Basic group (Kii's rules) owned by the owner, with the member and the target as members.
        case basic
        /// A Public group (Tencent's rules, addOpt AUTH) owned by the owner, with the member and the target.
        case publicGroup
        /// A Public group as above with a pending join application from the outsider.
        case application
        /// An AVChatRoom group (the only type with attributes) owned by the owner; the member and the target joined.
        case avChatRoom
        /// A Basic group as `basic`, with a bucket `box` in its scope holding object `o1` (made by root, so it
        /// has no creator: only the group's default entries apply).
        case groupBucket
        /// A Basic group as `basic` that owns a thing (onboarded by root) with a state, a command (issued by the
        /// group) and a trigger.
        case thing
    }

    /// A user account made for the test.
    struct Account: Sendable {
        var id: String
        var username: String?
        var password: String
        var token: String
        var refreshToken: String?
    }

    /// What a cell's params may use.
    struct Cell: Sendable {
        /// Unique across the run, for names and ids.
        var index: Int
        var principal: Principal
        /// The user the principal acts as (nil without a session).
        var actor: Account?
        /// A fresh user: the `user` principal acts as them, every other principal acts on them.
        var subject: Account
        /// The fixture's group id ("" without one).
        var group: String
        /// An ordinary member of the fixture group whom the call acts on.
        var target: String
        /// A user outside every fixture group.
        var outsider: String
        /// The pending application of a ``Fixture/application`` group.
        var application: Int64
        /// The ``Fixture/thing`` fixture's thing, command and trigger ("" without one).
        var thing: String = ""
        var command: String = ""
        var trigger: String = ""
    }

    /// One row of the matrix: a method (one variant of its params) and its finer rules.
    struct Row: Sendable {
        var method: String
        var variant: String
        /// The declared access, as `x-auth` says it.
        var access: String
        var fixture: Fixture
        /// Whether the subject is a pseudo user (who has no password).
        var pseudoSubject: Bool
        /// Whether a successful call binds the connection to a session (a principal without one then logs out).
        var binds: Bool
        /// Outcomes that differ from what the declared access alone gives.
        var finer: [Principal: String]
        /// Maps a result to an outcome, where "ok" is not precise enough.
        var refine: (@Sendable (JSONValue) -> String)?
        var params: @Sendable (Cell) -> JSONValue?

        var label: String { self.variant.isEmpty ? self.method : "\(self.method) (\(self.variant))" }

        /// The expected outcome: from the declared access unless a finer rule says otherwise.
        func expected(_ principal: Principal) -> String {
            if let finer = self.finer[principal] { return finer }
            switch self.access {
            case "anyone": return "ok"
            case "session", "principal": return principal == .anonymous ? "UNAUTHORIZED" : "ok"
            case "admin": return principal.isAdmin ? "ok" : "PERMISSION_DENIED"
            default: return "an x-auth the matrix does not know: \(self.access)"
            }
        }
    }

    /// The fixture could not be made.
    struct SetupError: Error {
        var message: String
    }

    /// One request of a cell's batch, with the outcome it must give.
    struct Entry: Sendable {
        var method: String
        var params: JSONValue?
        var expected: String
        var refine: (@Sendable (JSONValue) -> String)? = nil
        var label: String
    }

    /// A cell as sent: a batch of `entries`, or one raw line (then `entries` holds the one expectation for its reply).
    struct Sent: Sendable {
        var entries: [Entry]
        var raw: String? = nil
    }

    // MARK: - The rows

    /// A row open to anyone.
    static func anyone(
        _ method: String,
        _ variant: String = "",
        binds: Bool = false,
        _ params: @escaping @Sendable (Cell) -> JSONValue? = { _ in nil }
    ) -> Row {
        Row(
            method: method,
            variant: variant,
            access: "anyone",
            fixture: .none,
            pseudoSubject: false,
            binds: binds,
            finer: [:],
            refine: nil,
            params: params
        )
    }

    /// A row for admins only; `finer` names outcomes other than "ok" for some admins.
    static func admin(
        _ method: String,
        finer: [([Principal], String)] = [],
        _ params: @escaping @Sendable (Cell) -> JSONValue? = { _ in nil }
    ) -> Row {
        Row(
            method: method,
            variant: "",
            access: "admin",
            fixture: .none,
            pseudoSubject: false,
            binds: false,
            finer: Self.rules(finer),
            refine: nil,
            params: params
        )
    }

    /// A row that needs a session (or an admin).
    static func session(
        _ method: String,
        _ variant: String = "",
        access: String = "session",
        on fixture: Fixture = .none,
        pseudoSubject: Bool = false,
        finer: [([Principal], String)] = [],
        refine: (@Sendable (JSONValue) -> String)? = nil,
        _ params: @escaping @Sendable (Cell) -> JSONValue?
    ) -> Row {
        precondition(!finer.contains { $0.0.contains(.anonymous) }, "no session is decided by the declared access alone")
        return Row(
            method: method,
            variant: variant,
            access: access,
            fixture: fixture,
            pseudoSubject: pseudoSubject,
            binds: false,
            finer: Self.rules(finer),
            refine: refine,
            params: params
        )
    }

    /// A row of the objects area: open to anyone, decided by the ACLs of a group bucket (``Fixture/groupBucket``).
    static func objects(
        _ method: String,
        _ variant: String = "",
        finer: [([Principal], String)],
        _ params: @escaping @Sendable (Cell) -> JSONValue?
    ) -> Row {
        Self.row(method, variant, access: "anyone", on: .groupBucket, finer: finer, refine: Self.objectOutcome, params)
    }

    /// A row with finer rules for any principal, the anonymous one included.
    static func row(
        _ method: String,
        _ variant: String,
        access: String,
        on fixture: Fixture,
        finer: [([Principal], String)],
        refine: (@Sendable (JSONValue) -> String)?,
        _ params: @escaping @Sendable (Cell) -> JSONValue?
    ) -> Row {
        Row(
            method: method,
            variant: variant,
            access: access,
            fixture: fixture,
            pseudoSubject: false,
            binds: false,
            finer: Self.rules(finer),
            refine: refine,
            params: params
        )
    }

    /// Finer rules as a row holds them: each listed principal's outcome.
    static func rules(_ finer: [([Principal], String)]) -> [Principal: String] {
        Dictionary(finer.flatMap { principals, outcome in principals.map { ($0, outcome) } }, uniquingKeysWith: { $1 })
    }

    /// An objects-area result: "ok", or "FAIL" when an ACL change lists failed entries (a query's `results`
    /// are objects, not per-user outcomes).
    static let objectOutcome: @Sendable (JSONValue) -> String = { result in
        if case .array(let failed)? = result["failed"], !failed.isEmpty { return "FAIL \(failed)" }
        return "ok"
    }

    /// A row of the things area, on a thing the fixture group owns (``Fixture/thing``).
    static func things(
        _ method: String,
        _ access: String,
        finer: [([Principal], String)] = [],
        _ params: @escaping @Sendable (Cell) -> JSONValue?
    ) -> Row {
        // A state history's `results` are states, not per-user outcomes.
        Self.row(method, "", access: access, on: .thing, finer: finer, refine: { _ in "ok" }, params)
    }

    static let admins: [Principal] = [.root, .adminUID]
    /// Callers outside the fixture group, with or without a session.
    static let outsiders: [Principal] = [.anonymous, .user, .otherUser]
    static let nonMembers: [Principal] = [.user, .otherUser]
    /// Users other than the subject.
    static let otherUsers: [Principal] = [.otherUser, .member, .owner]

    /// Whether a user profile shows the private part (email).
    static let visibility: @Sendable (JSONValue) -> String = { $0["email"]?.stringValue == nil ? "ok public" : "ok full" }

    // swift-format-ignore
    static let rows: [Row] = [
        // Open to anyone: the JSON-RPC specification's examples, system, discovery, and getting a session.
        anyone("get_data") { _ in [] },
        anyone("notify_hello") { _ in [7] },
        anyone("notify_sum") { _ in [1, 2, 4] },
        anyone("update") { _ in [1, 2, 3, 4, 5] },
        anyone("subtract") { _ in ["minuend": 42, "subtrahend": 23] },
        anyone("sum") { _ in [1, 2, 4] },
        anyone("rpc.discover"),
        anyone("system.ping"),
        anyone("system.status"),
        // The health probe the watchdog is fed from.
        anyone("system.health"),
        anyone("group.types"),
        anyone("session.whoami"),
        anyone("session.authenticate", binds: true) { ["accessToken": .string($0.subject.token)] },
        anyone("user.register", binds: true) { ["username": .string("mx-r-\($0.index)"), "password": "pw-register"] },
        anyone("user.registerPseudo", binds: true) { _ in ["displayName": "Guest"] },
        anyone("user.login", binds: true) { ["username": .string($0.subject.username!), "password": .string($0.subject.password)] },
        anyone("user.refresh", binds: true) { ["refreshToken": .string($0.subject.refreshToken!)] },

        // Admins only.
        admin("system.check"),
        admin("system.metrics"),
        admin("system.storage"),
        // A PostgreSQL database is backed up with PostgreSQL's tools: an admin passes the check and is told so.
        admin("system.backup", finer: TestEngine.isPostgreSQL ? [(admins, "UNSUPPORTED_FOR_TYPE@path")] : []) { cell in
            ["path": .string(NSTemporaryDirectory() + "guild-mx-backup-\(getpid())-\(cell.index).sqlite")]
        },

        // A session. An admin without one passes the access check but has no user to act as.
        session("session.logout", finer: [(admins, "UNAUTHORIZED")]) { _ in nil },
        session("user.changePassword", finer: [(admins, "UNAUTHORIZED")]) {
            let password = $0.actor?.password ?? "pw-nobody"
            return ["oldPassword": .string(password), "newPassword": .string(password)]
        },
        session("user.putIdentity", pseudoSubject: true, finer: [(otherUsers, "IDENTITY_ALREADY_SET"), (admins, "UNAUTHORIZED")]) {
            ["username": .string("mx-i-\($0.index)"), "password": "pw-identity"]
        },
        session("user.get", "own", finer: [(admins, "UNAUTHORIZED")]) { _ in [:] },
        session("user.get", "userID", finer: [([.user], "ok full"), (otherUsers, "ok public"), (admins, "ok full")], refine: visibility) {
            ["userID": .string($0.subject.id)]
        },
        session("user.update", "own", finer: [(admins, "UNAUTHORIZED")]) { _ in ["displayName": "Renamed"] },
        session("user.update", "userID", finer: [(otherUsers, "PERMISSION_DENIED")]) {
            ["userID": .string($0.subject.id), "displayName": "Renamed"]
        },
        session("user.delete", "userID", finer: [(otherUsers, "PERMISSION_DENIED")]) { ["userID": .string($0.subject.id)] },
        session("user.memberOfGroups") { ["userID": .string($0.subject.id)] },
        session("user.ownerOfGroups") { ["userID": .string($0.subject.id)] },
        session("events.subscribe", access: "principal", finer: [(admins, "UNAUTHORIZED")]) { _ in ["kinds": ["newMessage"]] },
        session("events.subscribe", "all", access: "principal", finer: [([.user, .otherUser, .member, .owner], "PERMISSION_DENIED@all")]) { _ in ["all": true] },
        // Ends the subscription the connection's last successful events.subscribe opened.
        session("events.unsubscribe") { _ in ["subscription": "$sub"] },
        session("group.create") { ["name": "Created", "groupID": .string("mx-c-\($0.index)"), "type": "Public"] },
        session("group.create", "owner", finer: [(otherUsers, "PERMISSION_DENIED@owner")]) {
            ["name": "Created", "groupID": .string("mx-o-\($0.index)"), "type": "Public", "owner": .string($0.subject.id)]
        },
        session("group.joinedList", "own", finer: [(admins, "UNAUTHORIZED")]) { _ in [:] },
        // The contract: userID naming another user is for admins only.
        session("group.joinedList", "userID", finer: [(otherUsers, "PERMISSION_DENIED@userID")]) { ["userID": .string($0.subject.id)] },
        session("group.getInfo", on: .publicGroup) { ["groupIDs": [.string($0.group)]] },

        // A Basic group (Kii's rules: PERMISSION_DENIED; removing answers per user).
        session("group.get", on: .basic) { ["groupID": .string($0.group)] },
        session("group.owner", on: .basic) { ["groupID": .string($0.group)] },
        session("group.members", on: .basic) { ["groupID": .string($0.group)] },
        session("group.rename", on: .basic, finer: [(nonMembers + [.member], "PERMISSION_DENIED")]) {
            ["groupID": .string($0.group), "name": "Renamed"]
        },
        session("group.delete", on: .basic, finer: [(nonMembers + [.member], "PERMISSION_DENIED")]) { ["groupID": .string($0.group)] },
        session("group.addMembers", on: .basic, finer: [(nonMembers + [.member], "PERMISSION_DENIED")]) {
            ["groupID": .string($0.group), "userIDs": [.string($0.outsider)]]
        },
        session("group.removeMembers", on: .basic, finer: [(nonMembers + [.member], "FAIL PERMISSION_DENIED")]) {
            ["groupID": .string($0.group), "userIDs": [.string($0.target)]]
        },
        session("group.changeOwner", on: .basic, finer: [(nonMembers + [.member], "PERMISSION_DENIED")]) {
            ["groupID": .string($0.group), "userID": .string($0.target)]
        },

        // A Public group (Tencent's rules: 10007 with its reason, from the group rule table).
        session("group.join", on: .publicGroup, finer: [([.member, .owner], "ALREADY_MEMBER"), (admins, "UNAUTHORIZED")]) {
            ["groupID": .string($0.group), "message": "Hi"]
        },
        session("group.applications", on: .application, finer: [(nonMembers, "NOT_A_MEMBER"), ([.member], "NOT_ALLOWED")]) {
            ["groupID": .string($0.group)]
        },
        session("group.acceptApplication", on: .application, finer: [(nonMembers, "NOT_A_MEMBER"), ([.member], "NOT_ALLOWED")]) {
            ["groupID": .string($0.group), "applicationID": .int($0.application)]
        },
        session("group.refuseApplication", on: .application, finer: [(nonMembers, "NOT_A_MEMBER"), ([.member], "NOT_ALLOWED")]) {
            ["groupID": .string($0.group), "applicationID": .int($0.application), "message": "No"]
        },
        session("group.quit", on: .publicGroup, finer: [(nonMembers, "NOT_A_MEMBER"), ([.owner], "OWNER_CANNOT_QUIT"), (admins, "UNAUTHORIZED")]) {
            ["groupID": .string($0.group)]
        },
        session("group.dismiss", on: .publicGroup, finer: [(nonMembers, "NOT_A_MEMBER"), ([.member], "NOT_ALLOWED")]) {
            ["groupID": .string($0.group)]
        },
        session("group.setInfo", on: .publicGroup, finer: [(nonMembers, "NOT_A_MEMBER"), ([.member], "NOT_ALLOWED")]) {
            ["groupID": .string($0.group), "notification": "Changed"]
        },
        session("group.setReceiveOption", on: .publicGroup, finer: [(nonMembers, "NOT_A_MEMBER"), (admins, "UNAUTHORIZED")]) {
            ["groupID": .string($0.group), "option": "RECEIVE_NOT_NOTIFY"]
        },
        session("group.memberList", on: .publicGroup, finer: [(nonMembers, "NOT_A_MEMBER")]) { ["groupID": .string($0.group)] },
        session("group.membersInfo", on: .publicGroup, finer: [(nonMembers, "NOT_A_MEMBER")]) {
            ["groupID": .string($0.group), "userIDs": [.string($0.target)]]
        },
        session("group.setMemberInfo", on: .publicGroup, finer: [(nonMembers, "NOT_A_MEMBER"), ([.member], "NOT_ALLOWED")]) {
            ["groupID": .string($0.group), "userID": .string($0.target), "nameCard": "Card"]
        },
        session("group.muteMember", on: .publicGroup, finer: [(nonMembers, "NOT_A_MEMBER"), ([.member], "NOT_ALLOWED")]) {
            ["groupID": .string($0.group), "userID": .string($0.target), "seconds": 60]
        },
        session("group.setMemberRole", on: .publicGroup, finer: [(nonMembers, "NOT_A_MEMBER"), ([.member], "NOT_ALLOWED")]) {
            ["groupID": .string($0.group), "userID": .string($0.target), "role": "admin"]
        },
        session("group.transferOwner", on: .publicGroup, finer: [(nonMembers, "NOT_A_MEMBER"), ([.member], "NOT_ALLOWED")]) {
            ["groupID": .string($0.group), "userID": .string($0.target)]
        },
        session("group.sendMessage", on: .publicGroup, finer: [(nonMembers, "NOT_A_MEMBER"), (admins, "UNAUTHORIZED")]) {
            ["groupID": .string($0.group), "text": "Hello"]
        },
        session("group.history", on: .publicGroup, finer: [(nonMembers, "NOT_A_MEMBER")]) { ["groupID": .string($0.group)] },
        session("group.unreadCounts", on: .publicGroup, finer: [(nonMembers, "NOT_A_MEMBER"), (admins, "UNAUTHORIZED")]) {
            ["groupID": .string($0.group)]
        },
        session("group.markRead", on: .publicGroup, finer: [(nonMembers, "NOT_A_MEMBER"), (admins, "UNAUTHORIZED")]) {
            ["groupID": .string($0.group)]
        },
        session("group.recallMessage", on: .publicGroup, finer: [(nonMembers, "NOT_A_MEMBER"), ([.member, .owner] + admins, "10030 MESSAGE_NOT_FOUND")]) {
            ["groupID": .string($0.group), "msgID": "unknown"]
        },

        // An AVChatRoom group: attributes are for members (and app admins).
        session("group.initAttributes", on: .avChatRoom, finer: [(nonMembers, "NOT_A_MEMBER")]) {
            ["groupID": .string($0.group), "attributes": ["seat": "1"]]
        },
        session("group.setAttributes", on: .avChatRoom, finer: [(nonMembers, "NOT_A_MEMBER")]) {
            ["groupID": .string($0.group), "attributes": ["seat": "2"]]
        },
        session("group.deleteAttributes", on: .avChatRoom, finer: [(nonMembers, "NOT_A_MEMBER")]) {
            ["groupID": .string($0.group), "keys": ["seat"]]
        },
        session("group.getAttributes", on: .avChatRoom, finer: [(nonMembers, "NOT_A_MEMBER")]) { ["groupID": .string($0.group)] },

        // Objects, buckets and ACLs in a group's scope: members may read and write (the group's default
        // entries), only the group's owner (and admins) may drop the bucket or touch its ACL, and callers who
        // may not see a thing get the not-found answer, as if it did not exist.
        objects("object.create", finer: [([.anonymous], "UNAUTHORIZED"), (nonMembers, "PERMISSION_DENIED")]) {
            ["scope": .string("group:" + $0.group), "bucket": "box", "body": ["n": 2]]
        },
        objects("object.get", finer: [(outsiders, "OBJECT_NOT_FOUND@objectID")]) {
            ["scope": .string("group:" + $0.group), "bucket": "box", "objectID": "o1"]
        },
        objects("object.replace", finer: [(outsiders, "OBJECT_NOT_FOUND@objectID")]) {
            ["scope": .string("group:" + $0.group), "bucket": "box", "objectID": "o1", "body": ["n": 3], "ifVersion": "1"]
        },
        objects("object.patch", finer: [(outsiders, "OBJECT_NOT_FOUND@objectID")]) {
            ["scope": .string("group:" + $0.group), "bucket": "box", "objectID": "o1", "body": ["m": 3]]
        },
        objects("object.delete", finer: [(outsiders, "OBJECT_NOT_FOUND@objectID")]) {
            ["scope": .string("group:" + $0.group), "bucket": "box", "objectID": "o1"]
        },
        objects("object.query", finer: [(outsiders, "BUCKET_NOT_FOUND@bucket")]) {
            ["scope": .string("group:" + $0.group), "bucket": "box", "clause": ["type": "eq", "field": "n", "value": 1]]
        },
        objects("bucket.list", finer: []) { ["scope": .string("group:" + $0.group)] },
        objects("bucket.delete", finer: [(outsiders, "BUCKET_NOT_FOUND@bucket"), ([.member], "PERMISSION_DENIED")]) {
            ["scope": .string("group:" + $0.group), "bucket": "box"]
        },
        objects("acl.get", finer: [(outsiders, "BUCKET_NOT_FOUND@bucket"), ([.member], "PERMISSION_DENIED")]) {
            ["scope": .string("group:" + $0.group), "bucket": "box"]
        },
        objects("acl.grant", finer: [(outsiders, "BUCKET_NOT_FOUND@bucket"), ([.member], "PERMISSION_DENIED")]) {
            [
                "scope": .string("group:" + $0.group), "bucket": "box",
                "entries": [["action": "READ_OBJECTS_IN_BUCKET", "subject": .string("UserID:" + $0.outsider)]],
            ]
        },
        objects("acl.revoke", finer: [(outsiders, "BUCKET_NOT_FOUND@bucket"), ([.member], "PERMISSION_DENIED")]) {
            [
                "scope": .string("group:" + $0.group), "bucket": "box", "ensure": true,
                "entries": [["action": "READ_OBJECTS_IN_BUCKET", "subject": .string("UserID:" + $0.outsider)]],
            ]
        },

        // Things: the fixture group owns a thing, so its owner and member act as owners; a user adds themself
        // as an owner; only the thing (or an admin) posts results; installations are a user's own.
        things("thing.onboard", "session") {
            ["vendorThingID": .string("mx-o-\($0.index)"), "thingPassword": "pw", "owner": .string("user:" + ($0.actor ?? $0.subject).id)]
        },
        things("thing.get", "principal", finer: [(nonMembers, "PERMISSION_DENIED")]) { ["thingID": .string($0.thing)] },
        things("thing.find", "principal", finer: [(nonMembers, "PERMISSION_DENIED")]) { ["vendorThingID": .string("mx-t-\($0.index)")] },
        things("thing.update", "principal", finer: [(nonMembers, "PERMISSION_DENIED")]) {
            ["thingID": .string($0.thing), "firmwareVersion": .string("2.\($0.index)")]
        },
        things("thing.disable", "session", finer: [(nonMembers, "PERMISSION_DENIED")]) { ["thingID": .string($0.thing)] },
        things("thing.enable", "session", finer: [(nonMembers, "PERMISSION_DENIED")]) { ["thingID": .string($0.thing)] },
        things("thing.delete", "principal", finer: [(nonMembers, "PERMISSION_DENIED")]) { ["thingID": .string($0.thing)] },
        things("thing.setPassword", "admin", finer: [([.anonymous], "PERMISSION_DENIED")]) {
            ["thingID": .string($0.thing), "thingPassword": "new-pw"]
        },
        things("thing.addOwner", "principal") { ["thingID": .string($0.thing), "owner": .string("user:" + ($0.actor ?? $0.subject).id)] },
        things("thing.removeOwner", "principal", finer: [(nonMembers, "PERMISSION_DENIED")]) {
            ["thingID": .string($0.thing), "owner": .string("group:" + $0.group)]
        },
        things("thing.owners", "principal", finer: [(nonMembers, "PERMISSION_DENIED")]) { ["thingID": .string($0.thing)] },
        things("user.ownedThings", "session") { ["userID": .string(($0.actor ?? $0.subject).id)] },
        things("thing.putState", "principal", finer: [(nonMembers, "PERMISSION_DENIED")]) { ["thingID": .string($0.thing), "state": ["on": true]] },
        things("thing.getState", "principal", finer: [(nonMembers, "PERMISSION_DENIED")]) { ["thingID": .string($0.thing)] },
        things("thing.stateHistory", "principal", finer: [(nonMembers, "PERMISSION_DENIED")]) { ["thingID": .string($0.thing)] },
        Self.row(
            "thing.stateHistory",
            "grouped",
            access: "principal",
            on: .thing,
            finer: [(nonMembers, "PERMISSION_DENIED")],
            refine: { _ in "ok" }
        ) {
            [
                "thingID": .string($0.thing), "grouped": true, "from": 0, "to": 3_599_999, "interval": 3_600_000,
                "aggregations": [["type": "COUNT"]],
            ]
        },
        things("command.send", "session", finer: [(nonMembers, "PERMISSION_DENIED")]) {
            [
                "thingID": .string($0.thing), "actions": [["turnPower": [:]]], "issuer": .string("group:" + $0.group), "schema": "s",
                "schemaVersion": 1,
            ]
        },
        things("command.get", "principal", finer: [(nonMembers, "PERMISSION_DENIED")]) {
            ["thingID": .string($0.thing), "commandID": .string($0.command)]
        },
        things("command.list", "principal", finer: [(nonMembers, "PERMISSION_DENIED")]) { ["thingID": .string($0.thing)] },
        things("command.putResults", "principal", finer: [(nonMembers + [.member, .owner], "PERMISSION_DENIED")]) {
            ["thingID": .string($0.thing), "commandID": .string($0.command), "actionResults": [["turnPower": ["succeeded": true]]]]
        },
        things("installation.register", "session", finer: [(admins, "UNAUTHORIZED")]) { _ in ["deviceType": "ANDROID"] },
        things("installation.list", "session", finer: [(admins, "UNAUTHORIZED")]) { _ in nil },
        things("installation.delete", "session", finer: [(nonMembers + [.member, .owner] + admins, "INSTALLATION_NOT_FOUND")]) { _ in
            ["installationID": "in.none"]
        },
        things("trigger.create", "session", finer: [(nonMembers, "PERMISSION_DENIED")]) {
            [
                "thingID": .string($0.thing), "condition": ["type": "eq", "field": "on", "value": true],
                "command": ["actions": [["turnPower": [:]]], "issuer": .string("group:" + $0.group), "schema": "s", "schemaVersion": 1],
            ]
        },
        things("trigger.list", "principal", finer: [(nonMembers, "PERMISSION_DENIED")]) { ["thingID": .string($0.thing)] },
        things("trigger.get", "principal", finer: [(nonMembers, "PERMISSION_DENIED")]) {
            ["thingID": .string($0.thing), "triggerID": .string($0.trigger)]
        },
        things("trigger.results", "principal", finer: [(nonMembers, "PERMISSION_DENIED")]) {
            ["thingID": .string($0.thing), "triggerID": .string($0.trigger), "limit": 10]
        },
        things("trigger.patch", "session", finer: [(nonMembers, "PERMISSION_DENIED")]) {
            ["thingID": .string($0.thing), "triggerID": .string($0.trigger), "title": "patched"]
        },
        things("trigger.enable", "session", finer: [(nonMembers, "PERMISSION_DENIED")]) {
            ["thingID": .string($0.thing), "triggerID": .string($0.trigger)]
        },
        things("trigger.disable", "session", finer: [(nonMembers, "PERMISSION_DENIED")]) {
            ["thingID": .string($0.thing), "triggerID": .string($0.trigger)]
        },
        things("trigger.delete", "session", finer: [(nonMembers, "PERMISSION_DENIED")]) {
            ["thingID": .string($0.thing), "triggerID": .string($0.trigger)]
        },
    ]

    /// The code each expected reason must come with.
    static let codes: [String: Int] = [
        "UNAUTHORIZED": 40101, "PERMISSION_DENIED": 40301, "IDENTITY_ALREADY_SET": 40902, "NOT_A_MEMBER": 10007,
        "NOT_ALLOWED": 10007, "UNSUPPORTED_FOR_TYPE": 10007, "OWNER_CANNOT_QUIT": 10009, "ALREADY_MEMBER": 10013,
        "INVALID_PARAMS": -32602, "INVALID_REQUEST": -32600, "OBJECT_NOT_FOUND": 40405, "BUCKET_NOT_FOUND": 40406,
        "INSTALLATION_NOT_FOUND": 40413,
    ]
}

// MARK: - Admin claims, and admins with a session

extension AccessMatrixTests {
    /// `session.whoami` as "admin=… uid=… bound|unbound".
    static let whoamiOutcome: @Sendable (JSONValue) -> String = { result in
        let user = result["user"].flatMap { $0 == .null ? nil : $0 }
        return "admin=\(result["admin"]?.boolValue.map(String.init) ?? "?") uid=\(result["peer"]?["uid"]?.intValue.map(String.init) ?? "?") "
            + (user == nil ? "unbound" : "bound")
    }

    /// What `session.whoami` must say for a principal.
    static func whoami(_ principal: Principal, bound: Bool) -> String {
        "admin=\(principal.isAdmin) uid=\(principal.uid) \(bound ? "bound" : "unbound")"
    }

    /// Cells after the matrix. For the anonymous and the other user: claims of admin rights a non-admin can make
    /// in what it sends (params, envelope members, its own profile's fields, a user name); none of them grants
    /// anything, as admin rights come from the peer uid only. For the admins: their rights while a session is bound.
    static func extraCells(_ principal: Principal, victim: String, other: Account) -> [Sent] {
        let system = Entry(method: "system.check", params: nil, expected: "PERMISSION_DENIED", label: "system.check")
        switch principal {
        case .anonymous:
            return [
                Sent(
                    entries: [
                        Entry(method: "system.check", params: nil, expected: "PERMISSION_DENIED", label: "system.check claiming admin in params")
                    ],
                    raw:
                        #"{"jsonrpc":"2.0","id":"claim-params","method":"system.check","params":{"admin":true,"isAdmin":true,"uid":0,"adminUID":65534,"--admin-uid":65534}}"#
                ),
                Sent(
                    entries: [
                        Entry(
                            method: "system.check",
                            params: nil,
                            expected: "PERMISSION_DENIED",
                            label: "system.check claiming admin in the envelope"
                        )
                    ],
                    raw:
                        #"{"jsonrpc":"2.0","id":"claim-envelope","method":"system.check","admin":true,"uid":0,"peer":{"uid":0,"gid":0,"pid":1},"params":{}}"#
                ),
                Sent(entries: [
                    Entry(
                        method: "user.registerPseudo",
                        params: ["displayName": "root", "fields": ["admin": true, "isAdmin": true, "uid": 0, "role": "admin"]],
                        expected: "ok",
                        label: "a pseudo user whose fields claim admin"
                    ),
                    Entry(
                        method: "session.whoami",
                        params: nil,
                        expected: Self.whoami(principal, bound: true),
                        refine: Self.whoamiOutcome,
                        label: "whoami"
                    ),
                    system,
                    Entry(
                        method: "user.update",
                        params: ["userID": .string(victim), "displayName": "Taken"],
                        expected: "PERMISSION_DENIED",
                        label: "another user's profile"
                    ),
                    Entry(method: "events.subscribe", params: ["all": true], expected: "PERMISSION_DENIED@all", label: "every group's events"),
                    Entry(
                        method: "group.joinedList",
                        params: ["userID": .string(victim)],
                        expected: "PERMISSION_DENIED@userID",
                        label: "another user's groups"
                    ),
                    Entry(method: "session.logout", params: nil, expected: "ok", label: "logout"),
                    Entry(
                        method: "session.whoami",
                        params: nil,
                        expected: Self.whoami(principal, bound: false),
                        refine: Self.whoamiOutcome,
                        label: "whoami"
                    ),
                ]),
            ]
        case .otherUser:
            return [
                Sent(entries: [
                    Entry(
                        method: "user.login",
                        params: ["username": .string(other.username!), "password": .string(other.password)],
                        expected: "ok",
                        label: "login"
                    ),
                    Entry(
                        method: "user.update",
                        params: ["userID": .string(victim), "displayName": "Taken", "admin": true, "isAdmin": true, "uid": 0],
                        expected: "PERMISSION_DENIED",
                        label: "another user's profile, claiming admin in params"
                    ),
                    Entry(
                        method: "user.delete",
                        params: ["userID": .string(victim), "admin": true],
                        expected: "PERMISSION_DENIED",
                        label: "another user's deletion, claiming admin in params"
                    ),
                    Entry(
                        method: "group.create",
                        params: ["name": "Claimed", "groupID": "mx-claim", "type": "Public", "owner": .string(victim), "admin": true],
                        expected: "PERMISSION_DENIED@owner",
                        label: "a group for another owner, claiming admin in params"
                    ),
                    Entry(
                        method: "user.update",
                        params: ["fields": ["admin": true, "isAdmin": true, "uid": 0, "role": "admin"]],
                        expected: "ok",
                        label: "own fields claiming admin"
                    ),
                    Entry(
                        method: "session.whoami",
                        params: nil,
                        expected: Self.whoami(principal, bound: true),
                        refine: Self.whoamiOutcome,
                        label: "whoami"
                    ),
                    system,
                ]),
                Sent(entries: [
                    Entry(
                        method: "user.register",
                        params: ["username": "root", "password": "pw-root", "displayName": "root", "fields": ["admin": true]],
                        expected: "ok",
                        label: "a user named root"
                    ),
                    Entry(
                        method: "session.whoami",
                        params: nil,
                        expected: Self.whoami(principal, bound: true),
                        refine: Self.whoamiOutcome,
                        label: "whoami"
                    ),
                    system,
                    Entry(
                        method: "user.update",
                        params: ["userID": .string(victim), "displayName": "Taken"],
                        expected: "PERMISSION_DENIED",
                        label: "another user's profile"
                    ),
                ]),
            ]
        case .root, .adminUID:
            // Admin rights stay while a session is bound (acting as a user who is no admin), and leave nothing
            // behind: after logout the connection has no session and is still an admin connection.
            return [
                Sent(entries: [
                    Entry(
                        method: "user.login",
                        params: ["username": .string(other.username!), "password": .string(other.password)],
                        expected: "ok",
                        label: "\(principal) with a session: login"
                    ),
                    Entry(
                        method: "session.whoami",
                        params: nil,
                        expected: Self.whoami(principal, bound: true),
                        refine: Self.whoamiOutcome,
                        label: "\(principal) with a session: whoami"
                    ),
                    Entry(
                        method: "user.update",
                        params: ["userID": .string(victim), "fields": ["updatedBy": .string(principal.rawValue)]],
                        expected: "ok",
                        label: "\(principal) with a session: another user's profile"
                    ),
                    Entry(
                        method: "user.get",
                        params: ["userID": .string(victim)],
                        expected: "ok full",
                        refine: Self.visibility,
                        label: "\(principal) with a session: another user's full profile"
                    ),
                    Entry(
                        method: "group.joinedList",
                        params: ["userID": .string(victim)],
                        expected: "ok",
                        label: "\(principal) with a session: another user's groups"
                    ),
                    Entry(method: "system.check", params: nil, expected: "ok", label: "\(principal) with a session: system.check"),
                    Entry(method: "session.logout", params: nil, expected: "ok", label: "\(principal) with a session: logout"),
                    Entry(
                        method: "session.whoami",
                        params: nil,
                        expected: Self.whoami(principal, bound: false),
                        refine: Self.whoamiOutcome,
                        label: "\(principal) after logout: whoami"
                    ),
                ])
            ]
        default:
            return []
        }
    }
}

// MARK: - Running it

extension AccessMatrixTests {
    /// Sends each connection's cells in order, one connection after the other, and prints every reply (notifications
    /// are skipped; a result over 4 KiB, such as `rpc.discover`'s, is printed as its size). A cell is a batch `[[method, params|null], ...]` or one raw line. `"$sub"` as a subscription
    /// stands for the last subscription the connection opened.
    static let driver = #"""
        import json, socket, sys
        spec = json.load(open(sys.argv[1]))
        out = {}

        def run(connection):
            try:
                sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                sock.settimeout(30)
                sock.connect(spec["socket"])
                stream = sock.makefile("rb")
                subscription, next_id, replies = "s0", 0, []

                def receive():
                    while True:
                        line = stream.readline()
                        if not line:
                            raise RuntimeError("the daemon closed the connection")
                        message = json.loads(line)
                        if isinstance(message, list) or "id" in message:
                            return message

                for cell in connection["cells"]:
                    if "raw" in cell:
                        sock.sendall(cell["raw"].encode() + b"\n")
                        replies.append([receive()])
                        continue
                    batch = []
                    for method, params in cell["batch"]:
                        next_id += 1
                        request = {"jsonrpc": "2.0", "id": next_id, "method": method}
                        if isinstance(params, dict) and params.get("subscription") == "$sub":
                            params = dict(params, subscription=subscription)
                        if params is not None:
                            request["params"] = params
                        batch.append(request)
                    sock.sendall(json.dumps(batch, separators=(",", ":")).encode() + b"\n")
                    reply = receive()
                    if not isinstance(reply, list):
                        replies.append([reply] * len(batch))
                        continue
                    by_id = {r.get("id"): r for r in reply}
                    ordered = [by_id.get(r["id"]) for r in batch]
                    for r in ordered:
                        result = (r or {}).get("result")
                        if isinstance(result, dict) and isinstance(result.get("subscription"), str):
                            subscription = result["subscription"]
                        if result is not None and len(json.dumps(result)) > 4096:
                            r["result"] = {"bytes": len(json.dumps(result))}
                    replies.append(ordered)
                sock.close()
                out[connection["name"]] = replies
            except Exception as error:
                out[connection["name"]] = {"failed": repr(error)}

        for connection in spec["connections"]:
            run(connection)
        print(json.dumps(out))
        """#

    /// The outcome of one reply: "ok" (or what `refine` makes of the result), "FAIL reason" for a per-user
    /// failure in a successful call, or "code REASON[@field]" for an error.
    static func outcome(_ reply: JSONValue?, refine: (@Sendable (JSONValue) -> String)?) -> String {
        guard let reply, reply != .null else { return "no reply" }
        if let error = reply["error"] {
            let code = error["code"]?.intValue.map(String.init) ?? "?"
            let reason = error["data"]?["reason"]?.stringValue ?? "?"
            return "\(code) \(reason)" + (error["data"]?["field"]?.stringValue.map { "@\($0)" } ?? "")
        }
        guard let result = reply["result"] else { return "no result" }
        if let refine { return refine(result) }
        if case .array(let results)? = result["results"],
            let failed = results.first(where: { $0["result"]?.stringValue != "SUCC" })
        {
            return "\(failed["result"]?.stringValue ?? "?") \(failed["reason"]?.stringValue ?? "")"
        }
        return "ok"
    }

    /// Whether an outcome is the expected one: an expected error reason must come with its code, and with the
    /// field when the expectation names one (`REASON@field`).
    static func matches(_ actual: String, _ expected: String) -> Bool {
        guard let code = Self.codes[String(expected.prefix { $0 != "@" })] else { return actual == expected }
        let parts = expected.split(separator: "@", maxSplits: 1)
        let want = "\(code) \(parts[0])"
        if parts.count == 2 { return actual == "\(want)@\(parts[1])" }
        return actual == want || actual.hasPrefix("\(want)@")
    }

    /// The class of an outcome, for messages: allowed (a result, or a domain error that is no access error),
    /// UNAUTHORIZED, PERMISSION_DENIED, or the reason of a 10007 from the group rule table.
    static func outcomeClass(_ outcome: String) -> String {
        if outcome.hasPrefix("40101") { return "UNAUTHORIZED" }
        if outcome.hasPrefix("40301") { return "PERMISSION_DENIED" }
        if outcome.hasPrefix("10007") { return String(outcome.dropFirst(6)) }
        if outcome.hasPrefix("FAIL") { return "allowed, refused per user" }
        if outcome.hasPrefix("-") || outcome.hasPrefix("no ") { return "not run" }
        return "allowed"
    }

    static func string(_ value: JSONValue?, _ what: String) throws -> String {
        guard let string = value?.stringValue else { throw SetupError(message: "\(what) missing in a reply") }
        return string
    }

    static func decode(_ result: Result<[UInt8], RPCError>?, _ what: String) throws -> JSONValue {
        switch result {
        case .success(let bytes)?: return try JSONDecoder().decode(JSONValue.self, from: Data(bytes))
        case .failure(let error)?: throw error
        case nil: throw SetupError(message: "no reply to \(what)")
        }
    }

    /// Registers a user on `client` (which it binds): with a login name, password and email, or a pseudo user.
    static func register(_ client: GuildClient, _ name: String, pseudo: Bool = false) async throws -> Account {
        if pseudo {
            let auth = try await client.call("user.registerPseudo", params: ["displayName": .string(name)])
            return Account(
                id: try Self.string(auth["user"]?["userID"], "userID"),
                username: nil,
                password: "",
                token: try Self.string(auth["accessToken"], "accessToken"),
                refreshToken: nil
            )
        }
        let password = "pw-\(name)"
        let auth = try await client.call(
            "user.register",
            params: ["username": .string(name), "password": .string(password), "email": .string("\(name)@example.com")]
        )
        return Account(
            id: try Self.string(auth["user"]?["userID"], "userID"),
            username: name,
            password: password,
            token: try Self.string(auth["accessToken"], "accessToken"),
            refreshToken: auth["refreshToken"]?.stringValue
        )
    }

    /// Runs the driver with the cells of `connections`, as `uid` (root runs it directly); returns each
    /// connection's replies, cell by cell.
    static func drive(
        _ connections: [(name: String, cells: [Sent])],
        uid: Int,
        socket: String,
        scratch: Scratch
    ) async throws -> [String: JSONValue] {
        var spec: [String: JSONValue] = ["socket": .string(socket)]
        spec["connections"] = .array(
            connections.map { connection in
                [
                    "name": .string(connection.name),
                    "cells": .array(
                        connection.cells.map { sent in
                            if let raw = sent.raw { return ["raw": .string(raw)] }
                            return ["batch": .array(sent.entries.map { [.string($0.method), $0.params ?? .null] })]
                        }
                    ),
                ]
            }
        )
        let file = scratch.path + "/matrix-\(uid).json"
        try JSONEncoder().encode(JSONValue.object(spec)).write(to: URL(fileURLWithPath: file))
        chmod(file, 0o644)
        let result = try await UnprivilegedPython.run(Self.driver, [file], uid: uid)
        #expect(result.status == 0, "driver as uid \(uid): \(result.stderr)")
        guard case .object(let replies) = try JSONDecoder().decode(JSONValue.self, from: Data(result.stdout.utf8)) else { return [:] }
        return replies
    }
}

// MARK: - The test

extension AccessMatrixTests {
    @Test(.enabled(if: getuid() == 0, "needs root to run clients as other uids"))
    func everyMethodForEveryPrincipalThroughTheSocket() async throws {
        let started = Date()
        let scratch = try Scratch()
        defer { scratch.remove() }
        let daemon = try await RealDaemon.start(scratch, ["--socket-mode", "0666", "--admin-uid", "\(Self.adminUID)"])
        defer { daemon.terminate() }
        let root = try await GuildClient.connect(path: scratch.socket)

        // The rows cover exactly the methods of the live document, with its declared access.
        let document = try await root.call("rpc.discover")
        var declared: [String: String] = [:]
        if case .array(let methods)? = document["methods"] {
            for method in methods {
                if let name = method["name"]?.stringValue { declared[name] = method["x-auth"]?.stringValue ?? "(none)" }
            }
        }
        let covered = Set(Self.rows.map(\.method))
        #expect(Set(declared.keys).subtracting(covered).sorted() == [], "methods in rpc.discover without a row in the access matrix")
        #expect(covered.subtracting(declared.keys).sorted() == [], "rows for methods rpc.discover does not list")
        for row in Self.rows where declared[row.method] != nil {
            #expect(declared[row.method] == row.access, "\(row.label): the row says x-auth \(row.access)")
        }

        // The cast: the owner, a member, a target member the calls act on, another user, and an outsider who
        // applies to groups; then one fresh subject per cell.
        var standing: [String: Account] = [:]
        var clients: [String: GuildClient] = [:]
        for name in ["owner", "member", "target", "other", "outsider"] {
            let client = try await GuildClient.connect(path: scratch.socket)
            standing[name] = try await Self.register(client, "mx-\(name)")
            clients[name] = client
        }
        let (owner, member, target, other, outsider) = (
            standing["owner"]!, standing["member"]!, standing["target"]!, standing["other"]!, standing["outsider"]!
        )
        let cells = Self.rows.enumerated().flatMap { rowIndex, row in
            Principal.allCases.enumerated().map { (row: row, principal: $1, index: rowIndex * Principal.allCases.count + $0) }
        }
        let subjects = try await withThrowingTaskGroup(of: [Int: Account].self) { group in
            let lanes = 4
            for lane in 0..<lanes {
                group.addTask {
                    let client = try await GuildClient.connect(path: scratch.socket)
                    var made: [Int: Account] = [:]
                    for cell in cells where cell.index % lanes == lane {
                        made[cell.index] = try await Self.register(client, "mx-f-\(cell.index)", pseudo: cell.row.pseudoSubject)
                    }
                    await client.close()
                    return made
                }
            }
            return try await group.reduce(into: [:]) { $0.merge($1) { first, _ in first } }
        }

        let subjectsMade = Date()

        // One fresh group per cell that acts on one, made by root.
        var groups: [Int: String] = [:]
        var creates: [BatchEntry] = []
        for cell in cells where cell.row.fixture != .none {
            let id = "mx-g-\(cell.index)"
            groups[cell.index] = id
            let type: JSONValue =
                switch cell.row.fixture {
                case .basic, .groupBucket, .thing: "Basic"
                case .avChatRoom: "AVChatRoom"
                default: "Public"
                }
            let members: JSONValue = cell.row.fixture == .avChatRoom ? [] : [.string(member.id), .string(target.id)]
            creates.append(
                try .call(
                    "group.create",
                    params: ["name": "Cell", "groupID": .string(id), "type": type, "owner": .string(owner.id), "members": members]
                )
            )
        }
        for (index, reply) in try await root.batch(creates).enumerated() { _ = try Self.decode(reply, "group.create \(index)") }
        let objects = try cells.filter { $0.row.fixture == .groupBucket }.map { cell in
            try BatchEntry.call(
                "object.create",
                params: ["scope": .string("group:" + groups[cell.index]!), "bucket": "box", "objectID": "o1", "body": ["n": 1]]
            )
        }
        for (index, reply) in try await root.batch(objects).enumerated() { _ = try Self.decode(reply, "object.create \(index)") }
        let thingFixtures = try await Self.makeThings(root, cells.filter { $0.row.fixture == .thing }.map { ($0.index, groups[$0.index]!) })
        let chatRooms = cells.filter { $0.row.fixture == .avChatRoom }.map { groups[$0.index]! }
        for name in ["member", "target"] {
            let joins = try chatRooms.map { try BatchEntry.call("group.join", params: ["groupID": .string($0)]) }
            for reply in try await clients[name]!.batch(joins) { #expect(try Self.decode(reply, "join")["status"] == "JOINED") }
        }
        var applications: [Int: Int64] = [:]
        let applied = cells.filter { $0.row.fixture == .application }
        let applies = try applied.map { try BatchEntry.call("group.join", params: ["groupID": .string(groups[$0.index]!)]) }
        for (cell, reply) in zip(applied, try await clients["outsider"]!.batch(applies)) {
            applications[cell.index] = try Self.decode(reply, "application")["applicationID"]?.intValue
        }
        for client in clients.values { await client.close() }

        // Each principal's cells: [bind the principal's user,] the call[, logout if it bound a session, whoami].
        var sent: [Principal: [Sent]] = [:]
        var calls: [(row: Row, principal: Principal, connection: String, cell: Int, entry: Int)] = []
        let actors: [Principal: Account] = [.otherUser: other, .member: member, .owner: owner]
        for (row, principal, index) in cells {
            let subject = subjects[index]!
            let actor = principal == .user ? subject : actors[principal]
            let cell = Cell(
                index: index,
                principal: principal,
                actor: actor,
                subject: subject,
                group: groups[index] ?? "",
                target: target.id,
                outsider: outsider.id,
                application: applications[index] ?? 0,
                thing: thingFixtures[index]?.thing ?? "",
                command: thingFixtures[index]?.command ?? "",
                trigger: thingFixtures[index]?.trigger ?? ""
            )
            var entries: [Entry] = []
            if let actor {
                entries.append(
                    actor.username.map {
                        Entry(
                            method: "user.login",
                            params: ["username": .string($0), "password": .string(actor.password)],
                            expected: "ok",
                            label: "\(row.label) by \(principal): login"
                        )
                    }
                        ?? Entry(
                            method: "session.authenticate",
                            params: ["accessToken": .string(actor.token)],
                            expected: "ok",
                            label: "\(row.label) by \(principal): authenticate"
                        )
                )
            }
            calls.append((row, principal, principal.rawValue, sent[principal, default: []].count, entries.count))
            entries.append(
                Entry(
                    method: row.method,
                    params: row.params(cell),
                    expected: row.expected(principal),
                    refine: row.refine,
                    label: "\(row.label) by \(principal)"
                )
            )
            if actor == nil {
                if row.binds {
                    entries.append(Entry(method: "session.logout", params: nil, expected: "ok", label: "\(row.label) by \(principal): logout"))
                }
                entries.append(
                    Entry(
                        method: "session.whoami",
                        params: nil,
                        expected: Self.whoami(principal, bound: false),
                        refine: Self.whoamiOutcome,
                        label: "\(row.label) by \(principal): no session after the cell"
                    )
                )
            }
            sent[principal, default: []].append(Sent(entries: entries))
        }
        for principal in Principal.allCases {
            sent[principal, default: []] += Self.extraCells(principal, victim: target.id, other: other)
            sent[principal, default: []].append(
                Sent(entries: [
                    Entry(
                        method: "system.check",
                        params: nil,
                        expected: principal.isAdmin ? "ok" : "PERMISSION_DENIED",
                        label: "system.check by \(principal) at the end"
                    )
                ])
            )
        }

        // Unprivileged principals from one process as uid 65534, then root, then the --admin-uid peer, each from its
        // own process. One call at a time in the whole daemon, so no cell meets the concurrency bound on expensive
        // methods (SERVER_BUSY) and no principal's calls race another's.
        let fixturesMade = Date()
        let unprivileged = Principal.allCases.filter { !$0.isAdmin }.map { (name: $0.rawValue, cells: sent[$0]!) }
        var replies = try await Self.drive(unprivileged, uid: 65534, socket: scratch.socket, scratch: scratch)
        for admin in Self.admins {
            let cells = [(name: admin.rawValue, cells: sent[admin]!)]
            replies.merge(try await Self.drive(cells, uid: admin.uid, socket: scratch.socket, scratch: scratch)) { first, _ in first }
        }
        let driven = Date()

        // Every entry as expected; the matrix itself kept for printing.
        var matrix: [String: [Principal: String]] = [:]
        for principal in Principal.allCases {
            guard case .array(let cellReplies)? = replies[principal.rawValue] else {
                Issue.record("no replies for \(principal): \(replies[principal.rawValue] ?? .null)")
                continue
            }
            try #require(cellReplies.count == sent[principal]!.count, "\(principal): one reply list per cell")
            for (sentCell, cellReply) in zip(sent[principal]!, cellReplies) {
                guard case .array(let entryReplies) = cellReply, entryReplies.count == sentCell.entries.count else {
                    Issue.record("\(principal): \(cellReply)")
                    continue
                }
                for (entry, reply) in zip(sentCell.entries, entryReplies) {
                    let actual = Self.outcome(reply, refine: entry.refine)
                    #expect(
                        Self.matches(actual, entry.expected),
                        "\(entry.label): expected \(entry.expected), got \(actual) (\(Self.outcomeClass(actual)))"
                    )
                }
            }
        }
        for call in calls {
            if case .array(let cellReplies)? = replies[call.connection], call.cell < cellReplies.count,
                case .array(let entryReplies) = cellReplies[call.cell], call.entry < entryReplies.count
            {
                matrix[call.row.label, default: [:]][call.principal] = Self.outcome(entryReplies[call.entry], refine: call.row.refine)
            }
        }
        #expect(calls.count == Self.rows.count * Principal.allCases.count)

        // The claims changed nothing: the victim's profile is intact.
        let victim = try await root.call("user.get", params: ["userID": .string(target.id)])
        #expect(victim["displayName"] != "Taken")
        await root.close()

        if ProcessInfo.processInfo.environment["GUILD_ACCESS_MATRIX"] == "print" {
            var lines = ["method | " + Principal.allCases.map(\.rawValue).joined(separator: " | ")]
            for row in Self.rows {
                lines.append(row.label + " | " + Principal.allCases.map { matrix[row.label]?[$0] ?? "-" }.joined(separator: " | "))
            }
            print(lines.joined(separator: "\n"))
            let seconds = { (from: Date, to: Date) in String(format: "%.2f s", to.timeIntervalSince(from)) }
            print(
                "start and subjects \(seconds(started, subjectsMade)), groups \(seconds(subjectsMade, fixturesMade)),"
                    + " matrix \(seconds(fixturesMade, driven)) for \(calls.count) cells"
            )
        }
    }
}

// MARK: - The things fixture

extension AccessMatrixTests {
    /// For each cell, a thing owned by its group (onboarded by root), with a state, a command issued by the
    /// group, and a trigger.
    static func makeThings(
        _ root: GuildClient,
        _ cells: [(index: Int, group: String)]
    ) async throws
        -> [Int: (thing: String, command: String, trigger: String)]
    {
        let onboards = try cells.map { cell in
            try BatchEntry.call(
                "thing.onboard",
                params: ["vendorThingID": .string("mx-t-\(cell.index)"), "thingPassword": "pw", "owner": .string("group:" + cell.group)]
            )
        }
        var things: [Int: String] = [:]
        for (cell, reply) in zip(cells, try await root.batch(onboards)) {
            things[cell.index] = try Self.decode(reply, "thing.onboard")["thingID"]?.stringValue
        }
        var made: [Int: (thing: String, command: String, trigger: String)] = [:]
        for cell in cells {
            let thing = try #require(things[cell.index])
            let command: JSONValue = [
                "actions": [["turnPower": [:]]], "issuer": .string("group:" + cell.group), "schema": "s", "schemaVersion": 1,
            ]
            let replies = try await root.batch([
                try .call("thing.putState", params: ["thingID": .string(thing), "state": ["on": false]]),
                try .call("command.send", params: .object(["thingID": .string(thing)].merging(command.objectValue!) { $1 })),
                try .call(
                    "trigger.create",
                    params: ["thingID": .string(thing), "condition": ["type": "eq", "field": "on", "value": true], "command": command]
                ),
            ])
            made[cell.index] = (
                thing,
                try Self.decode(replies[1], "command.send")["commandID"]?.stringValue ?? "",
                try Self.decode(replies[2], "trigger.create")["triggerID"]?.stringValue ?? ""
            )
        }
        return made
    }
}
