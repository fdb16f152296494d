import Foundation
import GuildClient
import GuildJSON
import GuildProtocol
import GuildTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The group rules as a table, through the real daemon: every type × every operation × every standing
/// (owner, admin, member, non-member, app admin). The owner, admin, member and non-member calls come from an
/// unprivileged process (uid 65534, the Python client) holding that user's token, so no admin rights leak in;
/// the app admin calls come from root without a session. Each cell acts on a fresh group.
///
/// The expected table is written out here from the sources (protocol/users-and-groups.md and protocol/im-groups.md), not
/// derived from ``GroupPolicy``, so a wrong policy line fails it.
///
/// The test walks its whole table through one daemon: the slowest of the end-to-end tests under load (`.endToEnd`).
@Suite(.endToEnd)
struct RuleTableTests {
    static let standings = ["owner", "admin", "member", "nonMember", "appAdmin"]

    /// Outcome per standing, in the order of ``standings``: `ok`, `PENDING`/`JOINED` (group.join), `FAIL`
    /// (a per-user result), or the error's `data.reason`. `-` where the type has no such standing.
    // swift-format-ignore
    static let expected: [String: [String: [String]]] = [
        "Basic": [
            "join":          ["UNSUPPORTED_FOR_TYPE", "-", "UNSUPPORTED_FOR_TYPE", "UNSUPPORTED_FOR_TYPE", "UNAUTHORIZED"],
            "invite":        ["ok", "-", "PERMISSION_DENIED", "PERMISSION_DENIED", "ok"],
            "quit":          ["OWNER_CANNOT_QUIT", "-", "ok", "NOT_A_MEMBER", "UNAUTHORIZED"],
            "dismiss":       ["ok", "-", "PERMISSION_DENIED", "PERMISSION_DENIED", "ok"],
            "setInfo":       ["ok", "-", "PERMISSION_DENIED", "PERMISSION_DENIED", "ok"],
            "kick":          ["ok", "-", "FAIL", "FAIL", "ok"],
            "mute":          ["UNSUPPORTED_FOR_TYPE", "-", "UNSUPPORTED_FOR_TYPE", "UNSUPPORTED_FOR_TYPE", "UNSUPPORTED_FOR_TYPE"],
            "setRole":       ["UNSUPPORTED_FOR_TYPE", "-", "UNSUPPORTED_FOR_TYPE", "UNSUPPORTED_FOR_TYPE", "UNSUPPORTED_FOR_TYPE"],
            "transfer":      ["ok", "-", "PERMISSION_DENIED", "PERMISSION_DENIED", "ok"],
            "memberList":    ["ok", "-", "ok", "ok", "ok"],
            "setAttributes": ["UNSUPPORTED_FOR_TYPE", "-", "UNSUPPORTED_FOR_TYPE", "UNSUPPORTED_FOR_TYPE", "UNSUPPORTED_FOR_TYPE"],
            "applications":  ["UNSUPPORTED_FOR_TYPE", "-", "UNSUPPORTED_FOR_TYPE", "UNSUPPORTED_FOR_TYPE", "UNSUPPORTED_FOR_TYPE"],
        ],
        "Work": [
            "join":          ["UNSUPPORTED_FOR_TYPE", "-", "UNSUPPORTED_FOR_TYPE", "UNSUPPORTED_FOR_TYPE", "UNAUTHORIZED"],
            "invite":        ["ok", "-", "ok", "NOT_A_MEMBER", "ok"],
            "quit":          ["ok", "-", "ok", "NOT_A_MEMBER", "UNAUTHORIZED"],
            "dismiss":       ["UNSUPPORTED_FOR_TYPE", "-", "UNSUPPORTED_FOR_TYPE", "UNSUPPORTED_FOR_TYPE", "ok"],
            "setInfo":       ["ok", "-", "ok", "NOT_A_MEMBER", "ok"],
            "kick":          ["ok", "-", "NOT_ALLOWED", "NOT_A_MEMBER", "ok"],
            "mute":          ["UNSUPPORTED_FOR_TYPE", "-", "UNSUPPORTED_FOR_TYPE", "UNSUPPORTED_FOR_TYPE", "UNSUPPORTED_FOR_TYPE"],
            "setRole":       ["UNSUPPORTED_FOR_TYPE", "-", "UNSUPPORTED_FOR_TYPE", "UNSUPPORTED_FOR_TYPE", "UNSUPPORTED_FOR_TYPE"],
            "transfer":      ["ok", "-", "NOT_ALLOWED", "NOT_A_MEMBER", "ok"],
            "memberList":    ["ok", "-", "ok", "NOT_A_MEMBER", "ok"],
            "setAttributes": ["UNSUPPORTED_FOR_TYPE", "-", "UNSUPPORTED_FOR_TYPE", "UNSUPPORTED_FOR_TYPE", "UNSUPPORTED_FOR_TYPE"],
            "applications":  ["UNSUPPORTED_FOR_TYPE", "-", "UNSUPPORTED_FOR_TYPE", "UNSUPPORTED_FOR_TYPE", "UNSUPPORTED_FOR_TYPE"],
        ],
        "Public": Self.managed(join: "PENDING"),
        "Meeting": Self.managed(join: "JOINED"),
        "Community": Self.managed(join: "JOINED"),
        "AVChatRoom": [
            "join":          ["ALREADY_MEMBER", "-", "ALREADY_MEMBER", "JOINED", "UNAUTHORIZED"],
            "invite":        ["UNSUPPORTED_FOR_TYPE", "-", "UNSUPPORTED_FOR_TYPE", "UNSUPPORTED_FOR_TYPE", "UNSUPPORTED_FOR_TYPE"],
            "quit":          ["OWNER_CANNOT_QUIT", "-", "ok", "NOT_A_MEMBER", "UNAUTHORIZED"],
            "dismiss":       ["ok", "-", "NOT_ALLOWED", "NOT_A_MEMBER", "ok"],
            "setInfo":       ["ok", "-", "NOT_ALLOWED", "NOT_A_MEMBER", "ok"],
            "kick":          ["UNSUPPORTED_FOR_TYPE", "-", "UNSUPPORTED_FOR_TYPE", "UNSUPPORTED_FOR_TYPE", "UNSUPPORTED_FOR_TYPE"],
            "mute":          ["ok", "-", "NOT_ALLOWED", "NOT_A_MEMBER", "ok"],
            "setRole":       ["UNSUPPORTED_FOR_TYPE", "-", "UNSUPPORTED_FOR_TYPE", "UNSUPPORTED_FOR_TYPE", "UNSUPPORTED_FOR_TYPE"],
            "transfer":      ["UNSUPPORTED_FOR_TYPE", "-", "UNSUPPORTED_FOR_TYPE", "UNSUPPORTED_FOR_TYPE", "UNSUPPORTED_FOR_TYPE"],
            "memberList":    ["ok", "-", "ok", "NOT_A_MEMBER", "ok"],
            "setAttributes": ["ok", "-", "ok", "NOT_A_MEMBER", "ok"],
            "applications":  ["ok", "-", "NOT_ALLOWED", "NOT_A_MEMBER", "ok"],
        ],
    ]

    /// Public, Meeting and Community: owner, admins and members; they differ in how one joins.
    // swift-format-ignore
    static func managed(join: String) -> [String: [String]] {
        [
            "join":          ["ALREADY_MEMBER", "ALREADY_MEMBER", "ALREADY_MEMBER", join, "UNAUTHORIZED"],
            "invite":        ["UNSUPPORTED_FOR_TYPE", "UNSUPPORTED_FOR_TYPE", "UNSUPPORTED_FOR_TYPE", "UNSUPPORTED_FOR_TYPE", "ok"],
            "quit":          ["OWNER_CANNOT_QUIT", "ok", "ok", "NOT_A_MEMBER", "UNAUTHORIZED"],
            "dismiss":       ["ok", "NOT_ALLOWED", "NOT_ALLOWED", "NOT_A_MEMBER", "ok"],
            "setInfo":       ["ok", "ok", "NOT_ALLOWED", "NOT_A_MEMBER", "ok"],
            "kick":          ["ok", "ok", "NOT_ALLOWED", "NOT_A_MEMBER", "ok"],
            "mute":          ["ok", "ok", "NOT_ALLOWED", "NOT_A_MEMBER", "ok"],
            "setRole":       ["ok", "NOT_ALLOWED", "NOT_ALLOWED", "NOT_A_MEMBER", "ok"],
            "transfer":      ["ok", "NOT_ALLOWED", "NOT_ALLOWED", "NOT_A_MEMBER", "ok"],
            "memberList":    ["ok", "ok", "ok", "NOT_A_MEMBER", "ok"],
            "setAttributes": ["UNSUPPORTED_FOR_TYPE", "UNSUPPORTED_FOR_TYPE", "UNSUPPORTED_FOR_TYPE", "UNSUPPORTED_FOR_TYPE", "UNSUPPORTED_FOR_TYPE"],
            "applications":  ["ok", "ok", "NOT_ALLOWED", "NOT_A_MEMBER", "ok"],
        ]
    }

    /// The error code each reason must come with.
    static let codes: [String: Int] = [
        "UNSUPPORTED_FOR_TYPE": 10007, "NOT_ALLOWED": 10007, "NOT_A_MEMBER": 10007, "OWNER_CANNOT_QUIT": 10009,
        "ALREADY_MEMBER": 10013, "PERMISSION_DENIED": 40301, "UNAUTHORIZED": 40101,
    ]

    /// The call each operation makes; `T` is an ordinary member the operation acts on, `U` a user outside.
    static func call(_ operation: String, group: String, target: String, outsider: String) -> (String, [String: Any]) {
        switch operation {
        case "join": ("group.join", ["groupID": group])
        case "invite": ("group.addMembers", ["groupID": group, "userIDs": [outsider]])
        case "quit": ("group.quit", ["groupID": group])
        case "dismiss": ("group.dismiss", ["groupID": group])
        case "setInfo": ("group.setInfo", ["groupID": group, "notification": "changed"])
        case "kick": ("group.removeMembers", ["groupID": group, "userIDs": [target]])
        case "mute": ("group.muteMember", ["groupID": group, "userID": target, "seconds": 60])
        case "setRole": ("group.setMemberRole", ["groupID": group, "userID": target, "role": "admin"])
        case "transfer": ("group.transferOwner", ["groupID": group, "userID": target])
        case "memberList": ("group.memberList", ["groupID": group])
        case "setAttributes": ("group.setAttributes", ["groupID": group, "attributes": ["seat": "1"]])
        default: ("group.applications", ["groupID": group])
        }
    }

    /// Runs each case `[token|null, method, params]` and prints one outcome per case.
    static let runner = """
        import json, sys
        sys.path.insert(0, sys.argv[2])
        from guild_client import GuildClient, GuildError
        cases = json.load(open(sys.argv[3]))
        client = GuildClient(sys.argv[1])
        out = []
        for token, method, params in cases:
            if token is not None:
                client.call("session.authenticate", {"accessToken": token})
            try:
                result = client.call(method, params)
                if isinstance(result, dict) and "results" in result:
                    bad = [r["result"] for r in result["results"] if r["result"] != "SUCC"]
                    out.append(bad[0] if bad else "ok")
                elif isinstance(result, dict) and "status" in result:
                    out.append(result["status"])
                else:
                    out.append("ok")
            except GuildError as e:
                out.append("%s %s" % (e.code, e.reason))
        print(json.dumps({"uid": client.call("session.whoami")["peer"]["uid"], "outcomes": out}))
        """

    @Test(.enabled(if: getuid() == 0, "needs root to run the non-admin client as another uid"))
    func everyTypeOperationAndStandingThroughTheDaemon() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let daemon = try await RealDaemon.start(scratch, ["--socket-mode", "0666"])
        defer { daemon.terminate() }

        // The cast: one user for each standing, a target member and an outsider to invite.
        var clients: [String: GuildClient] = [:]
        var ids: [String: String] = [:]
        var tokens: [String: String] = [:]
        for name in ["owner", "admin", "member", "nonMember", "target", "outsider"] {
            let user = try await TestUser.registerPseudo(scratch.socket, displayName: name)
            (clients[name], ids[name], tokens[name]) = (user.client, user.id, user.token)
        }
        let root = try await GuildClient.connect(path: scratch.socket)
        let roles = ["Basic": false, "Work": false, "Public": true, "Meeting": true, "Community": true, "AVChatRoom": false]

        // One fresh group per cell, then the cases: standings other than appAdmin as uid 65534, appAdmin as root.
        var unprivileged: [[Any]] = []
        var privileged: [[Any]] = []
        var cells: [(type: String, operation: String, standing: String, expected: String)] = []
        var adminCells: [(type: String, operation: String, standing: String, expected: String)] = []
        for (type, operations) in Self.expected.sorted(by: { $0.key < $1.key }) {
            for (operation, outcomes) in operations.sorted(by: { $0.key < $1.key }) {
                for (index, standing) in Self.standings.enumerated() where outcomes[index] != "-" {
                    let suffix = "\(type.prefix(3))-\(operation.prefix(8))-\(index)".lowercased()
                    let group = type == "Community" ? "@TGS#_\(suffix)" : type == "Basic" ? "b-\(suffix)" : "im-\(suffix)"
                    var members: [JSONValue] = [.string(ids["member"]!), .string(ids["target"]!)]
                    if roles[type] == true { members.append(["userID": .string(ids["admin"]!), "role": "admin"]) }
                    let avChatRoom = type == "AVChatRoom"
                    _ = try await root.call(
                        "group.create",
                        params: [
                            "name": "cell", "groupID": .string(group), "type": .string(type), "owner": .string(ids["owner"]!),
                            "members": .array(avChatRoom ? [] : members),
                        ]
                    )
                    if avChatRoom {
                        for name in ["member", "target"] { _ = try await clients[name]!.call("group.join", params: ["groupID": .string(group)]) }
                    }
                    let (method, params) = Self.call(operation, group: group, target: ids["target"]!, outsider: ids["outsider"]!)
                    if standing == "appAdmin" {
                        privileged.append([NSNull(), method, params])
                        adminCells.append((type, operation, standing, outcomes[index]))
                    } else {
                        unprivileged.append([tokens[standing]!, method, params])
                        cells.append((type, operation, standing, outcomes[index]))
                    }
                }
            }
        }
        #expect(cells.count + adminCells.count == 6 * 12 * 5 - 3 * 12)

        for (cases, expected, asNobody) in [(unprivileged, cells, true), (privileged, adminCells, false)] {
            let file = scratch.path + (asNobody ? "/cases-nobody.json" : "/cases-root.json")
            try JSONSerialization.data(withJSONObject: cases).write(to: URL(fileURLWithPath: file))
            chmod(file, 0o644)
            let result = try await UnprivilegedPython.run(
                Self.runner,
                [scratch.socket, PythonClientTests.clientDirectory, file],
                uid: asNobody ? UnprivilegedPython.nobody : 0
            )
            #expect(result.status == 0, "\(result.stderr)")
            let output = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
            #expect((output["uid"] as? Int == 65534) == asNobody)
            let outcomes = try #require(output["outcomes"] as? [String])
            try #require(outcomes.count == expected.count)
            for (cell, outcome) in zip(expected, outcomes) {
                let want = Self.codes[cell.expected].map { "\($0) \(cell.expected)" } ?? cell.expected
                #expect(outcome == want, "\(cell.type) \(cell.operation) by \(cell.standing)")
            }
        }
    }
}
