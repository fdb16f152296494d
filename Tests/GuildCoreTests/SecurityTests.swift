import GuildCore
import Testing

struct PasswordHasherTests {
    let hasher = PasswordHasher(logN: 4)

    @Test func verifiesTheRightPasswordOnly() throws {
        let stored = try self.hasher.makeHash("correct horse")
        #expect(stored.hasPrefix("$scrypt$ln=4,r=8,p=1$"))
        #expect(self.hasher.check("correct horse", against: stored))
        #expect(!self.hasher.check("correct horsE", against: stored))
        #expect(!self.hasher.check("", against: stored))
    }

    @Test func saltsDiffer() throws {
        #expect(try self.hasher.makeHash("same") != (try self.hasher.makeHash("same")))
    }

    @Test func verificationUsesTheStoredCost() throws {
        let stored = try PasswordHasher(logN: 5).makeHash("pw")
        #expect(PasswordHasher(logN: 4).check("pw", against: stored))
    }

    @Test(arguments: ["", "plain", "$scrypt$ln=4,r=8,p=1$!!$!!", "$bcrypt$x$y$z", "$scrypt$ln=99,r=8,p=1$AAAA$AAAA"])
    func malformedHashesNeverVerify(_ stored: String) {
        #expect(!self.hasher.check("pw", against: stored))
    }
}

struct TokenTests {
    @Test func tokensAre256BitBase64URLAfterThePrefix() {
        let token = Token.generate()
        #expect(token.text.hasPrefix("gt_") && token.text.count == 3 + 43)
        #expect(token.text.dropFirst(3).allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
        // Never mistaken for a command-line option.
        #expect((0..<200).allSatisfy { _ in !Token.generate().text.hasPrefix("-") })
        #expect(token.hash.count == 32)
        #expect(Token(text: token.text).hash == token.hash)
    }

    @Test func tokensAreUnique() {
        let tokens = Set((0..<1000).map { _ in Token.generate().text })
        #expect(tokens.count == 1000)
    }
}

struct CallerTests {
    let user = User(id: "u1", username: "alice", isPseudo: false, createdAt: 0, modifiedAt: 0)

    @Test func targetDefaultsToTheCaller() throws {
        let caller = Caller(peer: .init(uid: 1000, gid: 1000, pid: 1), isAdmin: false, session: .init(user: self.user, tokenHash: [], expiresAt: nil))
        #expect(try caller.target(nil) == "u1")
        #expect(try caller.target("u1") == "u1")
        #expect(throws: GuildError(.permissionDenied, "")) { try caller.target("u2") }
    }

    @Test func adminsMayTargetAnyone() throws {
        let admin = Caller(peer: .init(uid: 0, gid: 0, pid: 1), isAdmin: true)
        #expect(try admin.target("u2") == "u2")
        #expect(throws: GuildError(.unauthorized, "")) { try admin.target(nil) }
    }

    @Test func noSessionIsUnauthorized() {
        let anonymous = Caller(peer: .init(uid: 1000, gid: 1000, pid: 1), isAdmin: false)
        #expect(throws: GuildError(.unauthorized, "")) { try anonymous.target("u1") }
        #expect(throws: GuildError(.unauthorized, "")) { try anonymous.requireUserID() }
    }
}
