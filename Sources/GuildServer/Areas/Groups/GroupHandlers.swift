import GuildCore
import GuildProtocol

extension MemberResultEntry {
    init(_ outcome: MemberOutcome) {
        self.init(userID: outcome.userID, result: outcome.result.rawValue, reason: outcome.reason)
    }
}

extension MethodRegistry {
    /// `group.*`, `user.memberOfGroups` and `user.ownerOfGroups`.
    mutating func registerGroupMethods(_ groups: GroupService, summaries: GroupSummaryCache) {
        self.register(GroupMethods.Create.self, access: .session) { params, context in
            let type: GroupType = try params.type.map { try choice($0, field: "type") } ?? .basic
            let members = try (params.members ?? []).map { spec in
                GroupService.InitialMember(userID: spec.userID, role: try spec.role.map { try choice($0, field: "members") } ?? .member)
            }
            let profile = ProfileChange(
                introduction: params.introduction,
                notification: params.notification,
                faceURL: params.faceURL,
                addOption: try params.addOpt.map { try choice($0, field: "addOpt", aliases: addOptionAliases) },
                custom: params.custom
            )
            let (group, notFound) = try await groups.create(
                caller: context.caller,
                name: params.name,
                groupID: params.groupID,
                type: type,
                members: members,
                ownerID: params.owner,
                profile: profile
            )
            return .init(group: GroupInfo(group), notFoundUsers: notFound)
        }
        self.register(GroupMethods.Get.self, access: .session) { params, context in
            GroupInfo(try await groups.get(caller: context.caller, groupID: params.groupID))
        }
        self.register(GroupMethods.Rename.self, access: .session) { params, context in
            GroupInfo(try await groups.rename(caller: context.caller, groupID: params.groupID, name: params.name))
        }
        self.register(GroupMethods.Delete.self, access: .session) { params, context in
            try await groups.delete(caller: context.caller, groupID: params.groupID)
            return true
        }
        self.register(GroupMethods.AddMembers.self, access: .session) { params, context in
            let outcomes = try await groups.addMembers(caller: context.caller, groupID: params.groupID, userIDs: params.userIDs)
            return .init(results: outcomes.map(MemberResultEntry.init))
        }
        self.register(GroupMethods.RemoveMembers.self, access: .session) { params, context in
            let outcomes = try await groups.removeMembers(caller: context.caller, groupID: params.groupID, userIDs: params.userIDs)
            return .init(results: outcomes.map(MemberResultEntry.init))
        }
        self.register(GroupMethods.Members.self, access: .session) { params, context in
            let page = try await groups.members(
                caller: context.caller,
                groupID: params.groupID,
                cursor: params.cursor ?? 0,
                limit: params.limit ?? 100
            )
            return .init(
                members: page.members.map { GroupMember(userID: $0.userID, role: $0.role.rawValue, joinedAt: $0.joinedAt) },
                nextCursor: page.next
            )
        }
        self.register(GroupMethods.Owner.self, access: .session) { params, context in
            .init(owner: try await groups.get(caller: context.caller, groupID: params.groupID).ownerID)
        }
        self.register(GroupMethods.ChangeOwner.self, access: .session) { params, context in
            GroupInfo(try await groups.changeOwner(caller: context.caller, groupID: params.groupID, userID: params.userID))
        }
        self.register(UserMethods.MemberOfGroups.self, access: .session) { params, context in
            .init(encodedGroups: try await summaries.listJSON(groups, caller: context.caller, userID: params.userID, ownedOnly: false))
        }
        self.register(UserMethods.OwnerOfGroups.self, access: .session) { params, context in
            .init(encodedGroups: try await summaries.listJSON(groups, caller: context.caller, userID: params.userID, ownedOnly: true))
        }
    }
}

/// A string param that must be one of an enumeration's raw values; otherwise `INVALID_PARAMS` naming the field.
/// Letter case does not matter (`work`, `ADMIN`); `aliases` maps other names (lowercased) to raw values.
func choice<E: RawRepresentable & CaseIterable>(
    _ value: String,
    field: String,
    aliases: [String: String] = [:]
) throws -> E where E.RawValue == String {
    if let exact = E(rawValue: value) { return exact }
    let folded = aliases[value.lowercased()] ?? value.lowercased()
    guard let known = E.allCases.first(where: { $0.rawValue.lowercased() == folded }) else {
        throw RPCError.invalidParams("\(field) must be one of \(E.allCases.map(\.rawValue).joined(separator: ", "))", field: field)
    }
    return known
}

/// Other names clients use for Tencent's join options: the REST names and the SDK's numbers.
let addOptionAliases: [String: String] = [
    "disableapply": "forbid", "needpermission": "auth", "freeaccess": "any", "0": "forbid", "1": "auth", "2": "any",
]
