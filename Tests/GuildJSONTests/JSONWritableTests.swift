import Foundation
import GuildJSON
import GuildProtocol
import Testing

/// Hand-written JSON must say exactly what JSONEncoder would.
struct JSONWritableTests {
    static let groups = [
        GroupInfo(groupID: "g1", name: "Sales \"Div.\"\n/ünï", type: "Basic", owner: "u1", memberCount: 3, createdAt: 1, modifiedAt: -2),
        GroupInfo(groupID: "g2", name: "", type: "Public", owner: nil, memberCount: 0, createdAt: 1_795_348_702_624, modifiedAt: 0),
    ]

    func encoderJSON(_ value: some Encodable) throws -> JSONValue {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try JSONDecoder().decode(JSONValue.self, from: try encoder.encode(value))
    }

    func writtenJSON(_ value: some JSONWritable) throws -> JSONValue {
        var bytes: [UInt8] = []
        value.writeJSON(to: &bytes)
        #expect(!bytes.contains(0x0A))
        return try JSONDecoder().decode(JSONValue.self, from: Data(bytes))
    }

    @Test func groupListsMatchJSONEncoder() throws {
        let result = UserMethods.MemberOfGroups.Result(groups: Self.groups)
        #expect(try self.writtenJSON(result) == (try self.encoderJSON(result)))
        #expect(try self.writtenJSON(result)["groups"]?.objectValue == nil)  // an array
        #expect(try RPCCoding.decode(UserMethods.MemberOfGroups.Result.self, from: try RPCCoding.encode(result)) == result)
    }

    @Test func memberPagesMatchJSONEncoder() throws {
        let page = GroupMethods.Members.Result(
            members: [GroupMember(userID: "u1", role: "owner", joinedAt: 5), GroupMember(userID: "u\t2", role: "member", joinedAt: 6)],
            nextCursor: 42
        )
        #expect(try self.writtenJSON(page) == (try self.encoderJSON(page)))
        #expect(try RPCCoding.decode(GroupMethods.Members.Result.self, from: try RPCCoding.encode(page)) == page)
    }
}
