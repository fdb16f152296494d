import GuildCore
import Testing

/// Group input validation: Kii's Basic group ids and names, Tencent's ids and byte limits for the IM types
/// (protocol/im-groups.md), and a caller's standing in a group.
struct GroupRulesTests {
    @Test(arguments: ["a", "team-1", "a.b_c", String(repeating: "z", count: 30)])
    func acceptsBasicGroupIDs(_ id: String) throws {
        try GroupRules.validateGroupID(id)
    }

    @Test(arguments: ["", "Upper", "with space", "a/b", "ü", String(repeating: "z", count: 31)])
    func rejectsBasicGroupIDs(_ id: String) {
        #expect(throws: GuildError(.invalidInput, "")) { try GroupRules.validateGroupID(id) }
    }

    @Test func imGroupIDsArePrintableASCIIUpTo48Bytes() throws {
        try GroupRules.validateIMGroupID("Any~Printable!ID", type: .work)
        try GroupRules.validateIMGroupID(String(repeating: "x", count: 48), type: .public)
        for bad in ["", "has space", "tab\t", String(repeating: "x", count: 49), "ümlaut"] {
            #expect(throws: GuildError(.invalidGroupID, ""), "\(bad)") { try GroupRules.validateIMGroupID(bad, type: .meeting) }
        }
    }

    @Test func theGeneratedIDPrefixIsReservedAndCommunityIDsMustUseIt() throws {
        #expect(throws: GuildError(.invalidGroupID, "")) { try GroupRules.validateIMGroupID("@TGS#abc", type: .work) }
        #expect(throws: GuildError(.invalidGroupID, "")) { try GroupRules.validateIMGroupID("@TGS#_abc", type: .avChatRoom) }
        try GroupRules.validateIMGroupID("@TGS#_abc", type: .community)
        #expect(throws: GuildError(.invalidGroupID, "")) { try GroupRules.validateIMGroupID("plain", type: .community) }
        #expect(throws: GuildError(.invalidGroupID, "")) { try GroupRules.validateIMGroupID("@TGS#abc", type: .community) }
    }

    @Test func basicNamesCountCharactersIMNamesCountBytes() throws {
        // Basic: 1 to 190 characters, whatever their size in bytes.
        try GroupRules.validateName(String(repeating: "名", count: 190), GroupPolicy.of(.basic))
        #expect(throws: GuildError(.invalidInput, "")) {
            try GroupRules.validateName(String(repeating: "a", count: 191), GroupPolicy.of(.basic))
        }
        #expect(throws: GuildError(.invalidInput, "")) { try GroupRules.validateName("", GroupPolicy.of(.basic)) }
        // IM types: 1 to 30 bytes of UTF-8; ten three-byte characters fit, eleven do not.
        try GroupRules.validateName(String(repeating: "名", count: 10), GroupPolicy.of(.work))
        #expect(throws: GuildError(.imInvalidParameters, "")) {
            try GroupRules.validateName(String(repeating: "名", count: 11), GroupPolicy.of(.work))
        }
        #expect(throws: GuildError(.imInvalidParameters, "")) { try GroupRules.validateName("", GroupPolicy.of(.community)) }
    }

    @Test func byteLimitsOfTheIMProfile() throws {
        try GroupRules.validateBytes(String(repeating: "a", count: 400), max: GroupRules.Limit.introduction, field: "introduction")
        try GroupRules.validateBytes("", max: GroupRules.Limit.notification, field: "notification")
        #expect(throws: GuildError(.imInvalidParameters, "")) {
            try GroupRules.validateBytes(String(repeating: "a", count: 401), max: GroupRules.Limit.introduction, field: "introduction")
        }
        #expect(throws: GuildError(.imInvalidParameters, "")) {
            try GroupRules.validateBytes("", max: GroupRules.Limit.nameCard, field: "nameCard", allowEmpty: false)
        }
        do {
            try GroupRules.validateBytes(String(repeating: "é", count: 26), max: GroupRules.Limit.nameCard, field: "nameCard")
            Issue.record("52 bytes passed a 50-byte limit")
        } catch {
            #expect(error.field == "nameCard")
        }
    }

    @Test func customFieldsHaveShortKeysAndBoundedValues() throws {
        try GroupRules.validateCustom([String(repeating: "k", count: 16): String(repeating: "v", count: 512)], field: "custom")
        #expect(throws: GuildError(.imInvalidParameters, "")) {
            try GroupRules.validateCustom([String(repeating: "k", count: 17): "v"], field: "custom")
        }
        #expect(throws: GuildError(.imInvalidParameters, "")) { try GroupRules.validateCustom(["": "v"], field: "custom") }
        #expect(throws: GuildError(.imInvalidParameters, "")) {
            try GroupRules.validateCustom(["k": String(repeating: "v", count: 513)], field: "custom")
        }
    }

    @Test func attributesAreAtMostSixteenKeysOf4KBAnd16KBInAll() throws {
        let sixteen = Dictionary(uniqueKeysWithValues: (0..<16).map { ("key\($0)", "v") })
        try GroupRules.validateAttributes(sixteen)
        var seventeen = sixteen
        seventeen["key16"] = "v"
        #expect(throws: GuildError(.imInvalidParameters, "")) { try GroupRules.validateAttributes(seventeen) }
        try GroupRules.validateAttributes([String(repeating: "k", count: 32): String(repeating: "v", count: 4096)])
        #expect(throws: GuildError(.imInvalidParameters, "")) {
            try GroupRules.validateAttributes([String(repeating: "k", count: 33): "v"])
        }
        #expect(throws: GuildError(.imInvalidParameters, "")) {
            try GroupRules.validateAttributes(["k": String(repeating: "v", count: 4097)])
        }
        // Four values of 4 KB fill the 16 KB with their keys on top: over the total.
        let full = Dictionary(uniqueKeysWithValues: (0..<4).map { ("k\($0)", String(repeating: "v", count: 4096)) })
        #expect(throws: GuildError(.imInvalidParameters, "")) { try GroupRules.validateAttributes(full) }
    }

    @Test func standingComesFromTheMembershipAndTheAdminBit() {
        let peer = PeerCredentials(uid: 1000, gid: 1000, pid: 1)
        let user = User(id: "u1", isPseudo: true, createdAt: 0, modifiedAt: 0)
        let session = ResolvedSession(user: user, tokenHash: [], expiresAt: nil)
        let signedIn = Caller(peer: peer, isAdmin: false, session: session)
        let admin = Caller(peer: peer, isAdmin: true, session: nil)
        func membership(_ role: GroupRole) -> Membership {
            Membership(groupID: "g", userID: "u1", role: role, joinedAt: 0, joinSeq: 1)
        }
        #expect(GroupRules.standing(of: signedIn, in: membership(.owner)) == .owner)
        #expect(GroupRules.standing(of: signedIn, in: membership(.admin)) == .admin)
        #expect(GroupRules.standing(of: signedIn, in: membership(.member)) == .member)
        #expect(GroupRules.standing(of: signedIn, in: nil) == .outsider)
        // Without a session a non-member has no standing at all; an admin peer is the app admin either way.
        #expect(GroupRules.standing(of: Caller(peer: peer, isAdmin: false), in: nil) == [])
        #expect(GroupRules.standing(of: admin, in: nil) == .appAdmin)
        #expect(GroupRules.standing(of: Caller(peer: peer, isAdmin: true, session: session), in: membership(.member)) == [.member, .appAdmin])
    }
}
