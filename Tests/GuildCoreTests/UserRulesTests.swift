import GuildCore
import GuildJSON
import Testing

struct UserRulesTests {
    @Test(arguments: ["abc", "a.b", "-._", "Alice_01", String(repeating: "x", count: 64)])
    func acceptsValidUsernames(_ name: String) throws {
        try UserRules.validateUsername(name)
    }

    @Test(arguments: ["ab", "", String(repeating: "x", count: 65), "has space", "ümlaut", "a/b", "a@b", "名前です"])
    func rejectsInvalidUsernames(_ name: String) {
        #expect(throws: GuildError(.invalidInput, "")) { try UserRules.validateUsername(name) }
        do {
            try UserRules.validateUsername(name)
        } catch {
            #expect(error.field == "username")
        }
    }

    @Test(arguments: ["abcd", "with space", "~!@#$%^&*()", String(repeating: "p", count: 50)])
    func acceptsValidPasswords(_ password: String) throws {
        try UserRules.validatePassword(password)
    }

    @Test(arguments: ["abc", "abcＫdef", "tab\there", "del\u{7F}ete", String(repeating: "p", count: 51), "ünïcode"])
    func rejectsInvalidPasswords(_ password: String) {
        #expect(throws: GuildError(.invalidInput, "")) { try UserRules.validatePassword(password) }
    }

    @Test func displayNameIsLimitedToFiftyCharacters() throws {
        try UserRules.validateDisplayName(String(repeating: "é", count: 50))
        #expect(throws: GuildError(.invalidInput, "")) {
            try UserRules.validateDisplayName(String(repeating: "é", count: 51))
        }
    }

    @Test(arguments: ["a@b.co", "first.last+tag@example.org"])
    func acceptsEmails(_ email: String) throws {
        try UserRules.validateEmail(email)
    }

    @Test(arguments: ["plain", "@example.org", "a@", "a@nodot", "a b@example.org", "a@@b.c"])
    func rejectsEmails(_ email: String) {
        #expect(throws: GuildError(.invalidInput, "")) { try UserRules.validateEmail(email) }
    }

    @Test func phoneNumbersAreDigitsWithOptionalPlus() throws {
        try UserRules.validatePhone("+819012345678")
        try UserRules.validatePhone("5551234")
        #expect(throws: GuildError(.invalidInput, "")) { try UserRules.validatePhone("+81-90") }
        #expect(throws: GuildError(.invalidInput, "")) { try UserRules.validatePhone("12") }
    }

    @Test func underscoreFieldsAreDroppedSilently() throws {
        let kept = try UserRules.sanitizeFields(["_secret": "x", "color": "red", "_id": 5])
        #expect(kept == ["color": "red"])
    }

    @Test func fieldsOver63KBAreRejected() throws {
        let big = String(repeating: "x", count: 63 * 1024)
        #expect(throws: GuildError(.invalidInput, "")) { try UserRules.sanitizeFields(["big": .string(big)]) }
        _ = try UserRules.sanitizeFields(["big": .string(String(repeating: "x", count: 60 * 1024))])
    }

    @Test func mergeReplacesAddsAndRemovesFields() throws {
        let merged = try UserRules.merge(["a": 2, "b": nil, "c": "new", "_x": 1], into: ["a": 1, "b": true, "d": "kept"])
        #expect(merged == ["a": 2, "c": "new", "d": "kept"])
    }
}
