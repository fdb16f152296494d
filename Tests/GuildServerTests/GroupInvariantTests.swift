import Foundation
import GuildClient
import GuildProtocol
import GuildTestSupport
import Testing

/// Many connections change memberships, owners and users at once; afterwards `system.check` finds the
/// invariants intact (at most one owner, the owner is a member, counts and both link directions agree).
@Suite(.timeLimit(.minutes(10)))
struct GroupInvariantTests {
    @Test func concurrentChurnFromManyConnectionsKeepsTheInvariants() async throws {
        try await TestDaemon.run { socket, _ in
            let setup = try await GuildClient.connect(path: socket)
            var users: [(id: String, token: String)] = []
            for index in 0..<16 {
                let auth = try await setup.call(UserMethods.RegisterPseudo.self, .init(displayName: "u\(index)"))
                users.append((auth.user.userID, auth.accessToken))
            }
            let ids = users.map(\.id)
            for index in 0..<6 {
                _ = try await setup.call(
                    GroupMethods.Create.self,
                    .init(name: "G\(index)", groupID: "g\(index)", members: ids.shuffled().prefix(8).map { .init(userID: $0) }, owner: ids[index])
                )
            }
            let everyone = users
            try await withThrowingTaskGroup(of: Void.self) { group in
                for worker in 0..<12 {
                    group.addTask {
                        // Half the connections act as admins, half as ordinary users (possibly refused).
                        let client = try await GuildClient.connect(path: socket)
                        let me = everyone[worker]
                        if worker.isMultiple(of: 2) {
                            _ = try await client.call(SessionMethods.Authenticate.self, .init(accessToken: me.token))
                        }
                        for _ in 0..<60 {
                            let groupID = "g\(Int.random(in: 0..<6))"
                            let target = ids.randomElement()!
                            switch Int.random(in: 0..<6) {
                            case 0: _ = try? await client.call(GroupMethods.AddMembers.self, .init(groupID: groupID, userIDs: [target]))
                            case 1: _ = try? await client.call(GroupMethods.RemoveMembers.self, .init(groupID: groupID, userIDs: [target]))
                            case 2: _ = try? await client.call(GroupMethods.ChangeOwner.self, .init(groupID: groupID, userID: target))
                            case 3: _ = try? await client.call(GroupMethods.RemoveMembers.self, .init(groupID: groupID, userIDs: [me.id]))
                            case 4: _ = try? await client.call(GroupMethods.Members.self, .init(groupID: groupID))
                            default: _ = try? await client.call(GroupMethods.Rename.self, .init(groupID: groupID, name: "w\(worker)"))
                            }
                        }
                        await client.close()
                    }
                }
                group.addTask {
                    let client = try await GuildClient.connect(path: socket)
                    for user in everyone.suffix(4) {
                        _ = try await client.call(UserMethods.Delete.self, .init(userID: user.id))
                    }
                    await client.close()
                }
                try await group.waitForAll()
            }
            let check = try await setup.call(SystemMethods.Check.self)
            #expect(check.ok, "\(check.violations)")
            #expect(check.integrity == ["ok"])
            for user in users.prefix(12) {
                let member = Set(try await setup.call(UserMethods.MemberOfGroups.self, .init(userID: user.id)).groups.map(\.groupID))
                let owned = try await setup.call(UserMethods.OwnerOfGroups.self, .init(userID: user.id)).groups
                #expect(Set(owned.map(\.groupID)).isSubset(of: member))
                for groupID in member {
                    let members = try await setup.call(GroupMethods.Members.self, .init(groupID: groupID, limit: 200)).members
                    #expect(members.contains { $0.userID == user.id }, "user->group and group->user views disagree")
                }
            }
        }
    }
}
