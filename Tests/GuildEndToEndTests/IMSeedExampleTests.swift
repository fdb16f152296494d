import Foundation
import GuildTestSupport
import Testing

/// Seed 003's worked flows through guildctl against a real daemon: a Work group created with a member
/// (`createGroup` with `memberList`), the owner pulled with the OWNER filter, a Public group's application
/// approved, a Meeting group joined freely, and the owner of a Public group refused when quitting.
@Suite(.endToEnd)
struct IMSeedExampleTests {
    let ctl = GuildctlTests()

    @Test func seedFlowsThroughGuildctl() async throws {
        try await self.ctl.withDaemon { d in
            let me = try await d.register("creator")
            let vinson = try await d.register("vinson")
            let reader = try await d.register("reader")

            // Create a Work group with vinson as initial member; the owner filter returns the creator alone.
            let created = try await d.call(["group", "create", "--name", "testWork", "--type", "Work", "--member", vinson.id], as: me)
            #expect(created.status == 0, "\(created.stderr)")
            let groupID = try #require((created.json?["group"] as? [String: Any])?["groupID"] as? String)
            #expect(groupID.hasPrefix("@TGS#"))
            let owners = try await d.call(["group", "member-list", "--group-id", groupID, "--filter", "OWNER"], as: vinson)
            #expect((owners.json?["members"] as? [[String: Any]])?.map { $0["userID"] as? String } == [me.id], "\(owners)")
            #expect(owners.json?["nextSeq"] as? Int == 0)
            // Work: joining is by invitation only; vinson (a member) invites reader without approval.
            let refused = try await d.call(["group", "join", "--group-id", groupID], as: reader)
            #expect(refused.status == 5 && refused.stderr.contains("UNSUPPORTED_FOR_TYPE"), "\(refused)")
            let invited = try await d.call(["group", "add-members", "--group-id", groupID, "--user", reader.id], as: vinson)
            #expect(invited.status == 0, "\(invited)")

            // Public: the request waits for the owner's approval.
            let club = try await d.call(["group", "create", "--name", "Club", "--type", "Public", "--group-id", "club"], as: me)
            #expect(club.status == 0, "\(club.stderr)")
            let applied = try await d.call(["group", "join", "--group-id", "club", "--message", "hello"], as: reader)
            #expect(applied.json?["status"] as? String == "PENDING")
            let applicationID = try #require(applied.json?["applicationID"] as? Int)
            let pending = try await d.call(["group", "applications", "--group-id", "club"], as: me)
            #expect(pending.json?["unreadCount"] as? Int == 1)
            let accepted = try await d.call(["group", "accept", "--group-id", "club", "--application", "\(applicationID)"], as: me)
            #expect(accepted.status == 0, "\(accepted.stderr)")
            let again = try await d.call(["group", "refuse", "--group-id", "club", "--application", "\(applicationID)"], as: me)
            #expect(again.status == 1 && again.stderr.contains("10024"), "\(again.stderr)")
            // The owner of a Public group may not quit (10009); a member may.
            let ownerQuits = try await d.call(["group", "quit", "--group-id", "club"], as: me)
            #expect(ownerQuits.stderr.contains("OWNER_CANNOT_QUIT"), "\(ownerQuits.stderr)")
            #expect(try await d.call(["group", "quit", "--group-id", "club"], as: reader).status == 0)

            // Meeting: join freely; the group is in the joined list, an AVChatRoom is not.
            _ = try await d.call(["group", "create", "--name", "Standup", "--type", "Meeting", "--group-id", "standup"], as: me)
            #expect(try await d.call(["group", "join", "--group-id", "standup"], as: reader).json?["status"] as? String == "JOINED")
            _ = try await d.call(["group", "create", "--name", "Live", "--type", "AVChatRoom", "--group-id", "live"], as: me)
            #expect(try await d.call(["group", "join", "--group-id", "live"], as: reader).json?["status"] as? String == "JOINED")
            let joined = try await d.call(["group", "joined"], as: reader)
            let joinedIDs = Set((joined.json?["groups"] as? [[String: Any]])?.compactMap { $0["groupID"] as? String } ?? [])
            #expect(joinedIDs == [groupID, "standup"])
            // Attributes and a mute in the AVChatRoom; the muted member's message is refused with 10017.
            let attributes = try await d.call(["group", "set-attributes", "--group-id", "live", "mic1=reader"], as: reader)
            #expect((attributes.json?["attributes"] as? [String: String]) == ["mic1": "reader"])
            #expect(try await d.call(["group", "mute", "--group-id", "live", "--user", reader.id, "--seconds", "60"], as: me).status == 0)
            let muted = try await d.call(["group", "send", "--group-id", "live", "hello"], as: reader)
            #expect(muted.status == 1 && muted.stderr.contains("10017"), "\(muted.stderr)")
            let types = try await d.call(["group", "types"], as: me)
            #expect((types.json?["types"] as? [[String: Any]])?.count == 6)
        }
    }
}
