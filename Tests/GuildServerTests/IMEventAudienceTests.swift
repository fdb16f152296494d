import GuildClient
import GuildJSON
import GuildProtocol
import GuildTestSupport
import Testing

/// Who receives each IM group callback, live and on replay: owner and admins only for join applications,
/// the applicant only for the decision, the quitter only for `quitFromGroup`, nobody but app admins for a
/// Meeting group's member changes, and nothing at all for a user outside the groups.
@Suite(.timeLimit(.minutes(10)))
struct IMEventAudienceTests {
    typealias Member = EventTests.Member

    @Test func eachCallbackReachesExactlyItsAudience() async throws {
        try await TestDaemon.run { socket, _ in
            let owner = try await Member.join(socket, "owner")
            let admin = try await Member.join(socket, "admin")
            let member = try await Member.join(socket, "member")
            let applicant = try await Member.join(socket, "applicant")
            let outsider = try await Member.join(socket, "outsider")
            let people = [owner, admin, member, applicant, outsider]
            var live: [EventSubscription] = []
            for person in people { live.append(try await person.client.subscribe()) }
            let watcher = try await GuildClient.connect(path: socket)  // root, no session: an app admin
            let everything = try await watcher.subscribe(all: true)

            let pub: JSONValue = .string("pub")
            _ = try await owner.client.call(
                "group.create",
                params: [
                    "name": "Readers", "groupID": pub, "type": "Public",
                    "members": [["userID": .string(admin.id), "role": "admin"], .string(member.id)],
                ]
            )
            let applied = try await applicant.client.call("group.join", params: ["groupID": pub, "message": "hi"])
            #expect(applied["status"] == "PENDING")
            _ = try await admin.client.call(
                "group.acceptApplication",
                params: ["groupID": pub, "applicationID": applied["applicationID"] ?? .null]
            )
            _ = try await owner.client.call("group.muteMember", params: ["groupID": pub, "userID": .string(member.id), "seconds": 60])
            _ = try await owner.client.call("group.setInfo", params: ["groupID": pub, "allMuted": true])
            _ = try await owner.client.call("group.setMemberRole", params: ["groupID": pub, "userID": .string(member.id), "role": "admin"])
            _ = try await applicant.client.call("group.quit", params: ["groupID": pub])
            _ = try await owner.client.call("group.removeMembers", params: ["groupID": pub, "userIDs": [.string(admin.id)]])
            _ = try await owner.client.call("group.create", params: ["name": "Standup", "groupID": "meet", "type": "Meeting"])
            #expect(try await member.client.call("group.join", params: ["groupID": "meet"])["status"] == "JOINED")
            _ = try await member.client.call("group.quit", params: ["groupID": "meet"])
            _ = try await owner.client.call("group.create", params: ["name": "Live", "groupID": "live", "type": "AVChatRoom"])
            _ = try await member.client.call("group.join", params: ["groupID": "live"])
            _ = try await member.client.call("group.setAttributes", params: ["groupID": "live", "attributes": ["seat": "1"]])
            _ = try await owner.client.call("group.dismiss", params: ["groupID": pub])
            // A last event everyone receives, so each live stream can be read to its end.
            _ = try await watcher.call(
                "group.create",
                params: ["name": "End", "groupID": "end", "members": .array(people.map { .string($0.id) })]
            )

            let pubFromCreation = [
                "groupCreated", "receiveJoinApplication", "memberEnter", "memberInfoChanged", "groupInfoChanged", "allMembersMuted",
                "grantAdministrator", "memberLeave", "memberKicked",
            ]
            let room = ["memberEnter", "groupAttributeChanged"]
            let expected: [[String]] = [
                pubFromCreation + ["groupCreated", "groupCreated"] + room + ["groupDismissed", "groupCreated"],
                pubFromCreation + ["groupCreated"],
                pubFromCreation.filter { $0 != "receiveJoinApplication" } + ["quitFromGroup"] + room + ["groupDismissed", "groupCreated"],
                [
                    "memberEnter", "applicationProcessed", "memberInfoChanged", "groupInfoChanged", "allMembersMuted", "grantAdministrator",
                    "memberLeave", "quitFromGroup", "groupCreated",
                ],
                ["groupCreated"],
            ]
            for (index, person) in people.enumerated() {
                let received = try await EventTests().take(expected[index].count, from: live[index])
                #expect(received.map(\.kind) == expected[index], "live, user \(index)")
                let replay = try await person.client.subscribe(since: 0)
                let replayed = try await EventTests().take(expected[index].count, from: replay)
                #expect(replayed.map(\.kind) == expected[index], "replay, user \(index)")
            }
            // The app admin watching everything also gets the Meeting group's member changes.
            let all = try await EventTests().take(20, from: everything)
            let meeting = all.filter { $0.groupID == "meet" }.map(\.kind)
            #expect(meeting == ["groupCreated", "memberEnter", "memberLeave", "quitFromGroup"])
            let info = try #require(all.first { $0.kind == "groupInfoChanged" })
            #expect(info.changes?["changeTypes"] == [8] && info.changes?["shutUpAll"] == true)
            let attributes = try #require(all.first { $0.kind == "groupAttributeChanged" })
            #expect(attributes.changes?["attributes"] == ["seat": "1"])
        }
    }

    /// A member whose receive option is NOT_RECEIVE gets no copy of the group's messages, live or on replay,
    /// but still every other event of the group; setting RECEIVE again brings the messages back. The app
    /// admin watching everything sees every message.
    @Test func notReceiveKeepsMessagesAwayFromThatMemberOnly() async throws {
        try await TestDaemon.run { socket, _ in
            let owner = try await Member.join(socket, "owner")
            let quiet = try await Member.join(socket, "quiet")
            let other = try await Member.join(socket, "other")
            let group: JSONValue = "chat"
            _ = try await owner.client.call(
                "group.create",
                params: ["name": "Chat", "groupID": group, "type": "Work", "members": [.string(quiet.id), .string(other.id)]]
            )
            let quietLive = try await quiet.client.subscribe(groupIDs: ["chat"])
            let otherLive = try await other.client.subscribe(groupIDs: ["chat"])
            let watcher = try await GuildClient.connect(path: socket)
            let everything = try await watcher.subscribe(all: true)

            _ = try await quiet.client.call("group.setReceiveOption", params: ["groupID": group, "option": "NOT_RECEIVE"])
            _ = try await owner.client.call("group.sendMessage", params: ["groupID": group, "text": "one"])
            _ = try await other.client.call("group.sendMessage", params: ["groupID": group, "text": "two"])
            _ = try await owner.client.call("group.setInfo", params: ["groupID": group, "introduction": "still told"])
            _ = try await quiet.client.call("group.setReceiveOption", params: ["groupID": group, "option": "RECEIVE"])
            _ = try await owner.client.call("group.sendMessage", params: ["groupID": group, "text": "three"])

            func summary(_ events: [GuildEvent]) -> [String] {
                events.map { event in
                    if case .string(let text)? = event.changes?["text"] { return "\(event.kind):\(text)" }
                    return event.kind
                }
            }
            // The receive option is the member's own setting: changing it tells nobody.
            let quietExpected = ["groupInfoChanged", "newMessage:three"]
            let otherExpected = ["newMessage:one", "newMessage:two", "groupInfoChanged", "newMessage:three"]
            #expect(summary(try await EventTests().take(quietExpected.count, from: quietLive)) == quietExpected)
            #expect(summary(try await EventTests().take(otherExpected.count, from: otherLive)) == otherExpected)
            let quietReplay = try await EventTests().take(1 + quietExpected.count, from: quiet.client.subscribe(groupIDs: ["chat"], since: 0))
            #expect(summary(quietReplay) == ["groupCreated"] + quietExpected)
            let otherReplay = try await EventTests().take(1 + otherExpected.count, from: other.client.subscribe(groupIDs: ["chat"], since: 0))
            #expect(summary(otherReplay) == ["groupCreated"] + otherExpected)
            #expect(summary(try await EventTests().take(4, from: everything)) == otherExpected)
        }
    }

    /// Enumerated params take any letter case, and the join option Tencent's other names for it.
    @Test func enumeratedParamsForgiveCaseAndTakeTencentsNames() async throws {
        try await TestDaemon.run { socket, _ in
            let owner = try await Member.join(socket, "owner")
            let bob = try await Member.join(socket, "bob")
            let created = try await owner.client.call(
                "group.create",
                params: ["name": "Club", "groupID": "club", "type": "public", "addOpt": "FreeAccess"]
            )
            #expect(created["group"]?["type"] == "Public")
            #expect(try await bob.client.call("group.join", params: ["groupID": "club"])["status"] == "JOINED")
            _ = try await owner.client.call("group.setMemberRole", params: ["groupID": "club", "userID": .string(bob.id), "role": "ADMIN"])
            let admins = try await owner.client.call("group.memberList", params: ["groupID": "club", "filter": "admin"])
            if case .array(let members)? = admins["members"], case .object(let first)? = members.first {
                #expect(members.count == 1 && first["userID"] == .string(bob.id))
            } else {
                Issue.record("no admins listed: \(admins)")
            }
            let info = try await owner.client.call("group.setInfo", params: ["groupID": "club", "addOpt": "1"])
            #expect(info["addOpt"] == "AUTH")
            await #expect(throws: RPCError.self) {
                _ = try await owner.client.call("group.setInfo", params: ["groupID": "club", "addOpt": "sometimes"])
            }
        }
    }
}
