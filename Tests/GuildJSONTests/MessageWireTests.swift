import Foundation
import GuildJSON
import GuildProtocol
import Testing

/// The message wire types' hand-written JSON says exactly what JSONEncoder would.
struct MessageWireTests {
    @Test func unreadCountsMatchJSONEncoder() throws {
        let writable = JSONWritableTests()
        let result = GroupMethods.UnreadCounts.Result(
            groups: [
                .init(groupID: "g\"1\"/ü", unread: 3, mentioned: true, badgeOnly: false, readSeq: 7),
                .init(groupID: "g2", unread: 0, mentioned: false, badgeOnly: true, readSeq: 0),
            ],
            total: 3
        )
        #expect(try writable.writtenJSON(result) == (try writable.encoderJSON(result)))
        #expect(try RPCCoding.decode(GroupMethods.UnreadCounts.Result.self, from: try RPCCoding.encode(result)) == result)
    }
}
