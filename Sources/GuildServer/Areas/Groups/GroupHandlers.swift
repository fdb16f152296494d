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
        self.register(GroupMethods.Create.self) { params, context in
            let type: GroupType = params.type.map(domain) ?? .basic
            let members = (params.members ?? []).map { spec in
                GroupService.InitialMember(userID: spec.userID, role: spec.role.map(domain) ?? .member)
            }
            let profile = ProfileChange(
                introduction: params.introduction,
                notification: params.notification,
                faceURL: params.faceURL,
                addOption: params.addOpt.map(domain),
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
        self.register(GroupMethods.Get.self) { params, context in
            GroupInfo(try await groups.get(caller: context.caller, groupID: params.groupID))
        }
        self.register(GroupMethods.Rename.self) { params, context in
            GroupInfo(try await groups.rename(caller: context.caller, groupID: params.groupID, name: params.name))
        }
        self.register(GroupMethods.Delete.self) { params, context in
            try await groups.delete(caller: context.caller, groupID: params.groupID)
            return true
        }
        self.register(GroupMethods.AddMembers.self) { params, context in
            let outcomes = try await groups.addMembers(caller: context.caller, groupID: params.groupID, userIDs: params.userIDs)
            return .init(results: outcomes.map(MemberResultEntry.init))
        }
        self.register(GroupMethods.RemoveMembers.self) { params, context in
            let outcomes = try await groups.removeMembers(caller: context.caller, groupID: params.groupID, userIDs: params.userIDs)
            return .init(results: outcomes.map(MemberResultEntry.init))
        }
        self.register(GroupMethods.Members.self) { params, context in
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
        self.register(GroupMethods.Owner.self) { params, context in
            .init(owner: try await groups.get(caller: context.caller, groupID: params.groupID).ownerID)
        }
        self.register(GroupMethods.ChangeOwner.self) { params, context in
            GroupInfo(try await groups.changeOwner(caller: context.caller, groupID: params.groupID, userID: params.userID))
        }
        self.register(UserMethods.MemberOfGroups.self) { params, context in
            .init(encodedGroups: try await summaries.listJSON(groups, caller: context.caller, userID: params.userID, ownedOnly: false))
        }
        self.register(UserMethods.OwnerOfGroups.self) { params, context in
            .init(encodedGroups: try await summaries.listJSON(groups, caller: context.caller, userID: params.userID, ownedOnly: true))
        }
    }
}

/// The domain value of an enumerated param (a ``WireEnum``, already checked when the params were decoded): the
/// case with the same raw value.
func domain<Wire: WireEnum, Domain: RawRepresentable>(_ value: Wire) -> Domain where Domain.RawValue == String {
    guard let known = Domain(rawValue: value.rawValue) else {
        preconditionFailure("\(Wire.self).\(value.rawValue) has no \(Domain.self)")
    }
    return known
}
