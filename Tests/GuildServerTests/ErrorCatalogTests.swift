import GuildCore
import GuildJSON
import GuildProtocol
import Testing

@testable import GuildServer

/// The error catalog is each error's one declaration: the domain's codes, the reason constants and the server's
/// mapping all come from it, and agree.
struct ErrorCatalogTests {
    static let entries = ErrorReason.sections.flatMap(\.entries)

    /// Every domain code has its entry's code and reason on the wire, and no entry is answered by two codes.
    @Test func everyDomainCodeHasTheWireFormOfItsEntry() throws {
        #expect(GuildError.Code.allCases.count == Self.entries.compactMap(\.domainCase).count)
        #expect(GuildError.wireForms.count == GuildError.Code.allCases.count)
        for code in GuildError.Code.allCases {
            let entry = try #require(Self.entries.first { $0.domainCase == code.rawValue }, "\(code)")
            let wire = try #require(GuildError.wireForms[code], "\(code)")
            #expect(wire.0 == entry.code && wire.1 == entry.reason, "\(code)")
        }
    }

    /// The wire forms the protocol documents for codes whose names differ from their reasons', and a few more,
    /// as they were before the table was generated.
    @Test(arguments: [
        (GuildError.Code.invalidInput, -32602, "INVALID_INPUT_DATA"),
        (.unsupported, 10007, "UNSUPPORTED_FOR_TYPE"),
        (.imInvalidParameters, 10004, "INVALID_PARAMETERS"),
        (.notAMember, 10007, "NOT_A_MEMBER"),
        (.notAllowed, 10007, "NOT_ALLOWED"),
        (.userNotFound, 40401, "USER_NOT_FOUND"),
        (.groupIDInUse, 10021, "GROUP_ID_IN_USE"),
        (.storageUnavailable, 50301, "STORAGE_UNAVAILABLE"),
        (.quotaExceeded, 42902, "QUOTA_EXCEEDED"),
    ])
    func aDomainErrorGoesOnTheWireWithItsCodeReasonFieldAndDetails(code: GuildError.Code, number: Int, reason: String) {
        var error = GuildError(code, "said plainly", field: "name")
        error.details = ["limit": 3]
        let wire = error.rpcError
        #expect(wire.code.rawValue == number)
        #expect(wire.message == "said plainly")
        #expect(wire.data?["reason"] == .string(reason))
        #expect(wire.data?["field"] == .string("name"))
        #expect(wire.data?["limit"] == .int(3))
    }

    /// Each reason has one constant, named from the reason (`GROUP_ID_IN_USE` is `groupIDInUse`), and one entry.
    @Test func reasonsAndTheirConstantNamesAreUnique() {
        #expect(Set(Self.entries.map(\.reason)).count == Self.entries.count)
        #expect(Set(Self.entries.map(\.name)).count == Self.entries.count)
        #expect(ErrorEntry(.groupIDInUse, "GROUP_ID_IN_USE", when: "").name == "groupIDInUse")
        #expect(ErrorEntry(.invalidGroupID, "INVALID_GROUP_ID", when: "").name == "invalidGroupID")
        #expect(ErrorEntry(.parseError, "PARSE_ERROR", when: "").name == "parseError")
        #expect(ErrorReason.groupIDInUse == "GROUP_ID_IN_USE")
    }
}
