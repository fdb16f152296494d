import Foundation
import GRDB
import GuildCore
import GuildJSON
import GuildProtocol
import GuildServer
import GuildTestSupport
import Testing

@testable import GuildStore

/// Free text holding U+0000 and other control characters is stored and read back byte for byte, through every
/// store read (GRDB alone binds text as a C string and reads it with `String(cString:)`, both cut at a NUL).
struct StoredTextTests {
    static let samples = [
        "vis\u{0}hidden",
        "\u{0}",
        "a\u{0}\u{0}b\u{1}\u{1F}\u{7F}\t\n\r\"\\ é 🎉",
        "plain",
        "",
    ]

    @Test(arguments: Self.samples)
    func userTextRoundTrips(text: String) async throws {
        let temp = try TemporaryStore()
        defer { temp.remove() }
        let users = try await makeService(temp.store)
        let fields: [String: JSONValue] = ["k\u{0}ey": .string(text), "n": .array([.string(text)])]
        let (user, _) = try await users.registerPseudo(displayName: text, fields: fields)
        let stored = try #require(try await temp.store.read { try $0.users.user(id: user.id) })
        #expect(Array(stored.displayName?.utf8 ?? "".utf8) == Array(text.utf8))
        #expect(stored.fields == fields)

        let changed = "x" + text + "\u{0}y"
        _ = try await temp.store.write { tx in
            var user = try #require(try tx.users.user(id: user.id))
            let old = user
            user.displayName = changed
            user.modifiedAt = 2
            try tx.users.saveUser(user, old: old)
        }
        let updated = try #require(try await temp.store.read { try $0.users.user(id: user.id) })
        #expect(Array(updated.displayName?.utf8 ?? "".utf8) == Array(changed.utf8))
        // The raw column holds every byte (as a BLOB when there is a NUL).
        let raw = try await temp.store.pool.read { db in
            try Data.fetchOne(db, sql: "SELECT CAST(displayName AS BLOB) FROM \"user\" WHERE id = ?", arguments: [user.id])
        }
        #expect(raw.map(Array.init) == Array(changed.utf8))
    }

    @Test(arguments: Self.samples)
    func groupTextRoundTrips(text: String) async throws {
        let temp = try TemporaryStore()
        defer { temp.remove() }
        let users = try await makeService(temp.store)
        let (user, _) = try await users.registerPseudo(displayName: "nick\u{0}name" + text, fields: nil)
        let name = "g" + text
        let application = try await temp.store.write { tx in
            try tx.groups.insertGroup(id: "g1", name: name, type: .work, now: 1)
            try tx.groups.insertMember(groupID: "g1", userID: user.id, role: .owner, now: 1)
            var group = try #require(try tx.groups.group("g1"))
            group.introduction = "intro" + text
            group.notification = text + "note"
            group.faceURL = "https://x/\(text)"
            group.custom = ["c\u{0}": text]
            try tx.groups.saveProfile(group)
            _ = try tx.imGroups.saveAttributes(groupID: "g1", values: ["a": text, "b\u{0}": "v"])
            try tx.imGroups.updateMember(groupID: "g1", userID: user.id, nameCard: "card" + text, custom: ["m": text], receiveOption: nil)
            return try tx.imGroups.insertApplication(groupID: "g1", fromUser: user.id, message: "hello" + text, now: 2)
        }
        let (group, attributes, member, stored) = try await temp.store.read { tx in
            (
                try tx.groups.group("g1"), try tx.imGroups.attributes(groupID: "g1"), try tx.imGroups.memberInfos(groupID: "g1", userIDs: [user.id]),
                try tx.imGroups.application(id: application.id)
            )
        }
        #expect(group?.name.utf8.elementsEqual(name.utf8) == true)
        #expect(group?.introduction.utf8.elementsEqual(("intro" + text).utf8) == true)
        #expect(group?.notification.utf8.elementsEqual((text + "note").utf8) == true)
        #expect(group?.faceURL.utf8.elementsEqual("https://x/\(text)".utf8) == true)
        #expect(group?.custom == ["c\u{0}": text])
        #expect(attributes.values == ["a": text, "b\u{0}": "v"])
        #expect(member.first?.nameCard.utf8.elementsEqual(("card" + text).utf8) == true)
        #expect(member.first?.nickName?.utf8.elementsEqual(("nick\u{0}name" + text).utf8) == true)
        #expect(member.first?.custom == ["m": text])
        #expect(stored?.message.utf8.elementsEqual(("hello" + text).utf8) == true)
        // A key with a NUL names nothing: not the group or user its first bytes name.
        let (prefixGroup, prefixMember, prefixUser) = try await temp.store.read { tx in
            (
                try tx.groups.group("g1\u{0}x"), try tx.groups.membership(groupID: "g1\u{0}", userID: user.id),
                try tx.groups.userExists(user.id + "\u{0}x")
            )
        }
        #expect(prefixGroup == nil)
        #expect(prefixMember == nil)
        #expect(!prefixUser)

        // The group list JSON (written from the row, then from the summary cache) holds the whole name.
        for _ in 0..<2 {
            let json = try await GroupSummaryCache.attached(to: temp.store).listJSON(
                GroupService(store: temp.store),
                caller: Caller(peer: .init(uid: 0, gid: 0, pid: 1), isAdmin: true),
                userID: user.id,
                ownedOnly: false
            )
            let list = try RPCCoding.decode([GroupInfo].self, from: json)
            #expect(list.first?.name.utf8.elementsEqual(name.utf8) == true)
        }
    }

    /// Emails are looked up, so they must stay TEXT: one with a NUL or another control character is refused.
    @Test(arguments: ["a\u{0}b@example.com", "a@exa\u{0}mple.com", "a\u{1}@example.com", "a\u{7F}@example.com"])
    func emailsWithControlCharactersAreRefused(email: String) {
        #expect(throws: GuildError(.invalidInput, "")) { try UserRules.validateEmail(email) }
    }

    /// A session stored for a user deleted meanwhile (a login racing user.delete) is refused with USER_NOT_FOUND,
    /// never a foreign-key failure, and `UserService.login` answers INVALID_CREDENTIALS then.
    @Test func sessionForADeletedUserIsUserNotFound() async throws {
        let temp = try TemporaryStore()
        defer { temp.remove() }
        let users = try await makeService(temp.store)
        let (user, session) = try await users.registerPseudo(displayName: nil, fields: nil)
        #expect(try await temp.store.write { try $0.users.deleteUserRecord(id: user.id) })
        await #expect(throws: GuildError(.userNotFound, "")) {
            try await temp.store.write { try $0.users.insertSession(session, userID: user.id, now: 2) }
        }
    }
}
