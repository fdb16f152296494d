import GuildCore
import GuildProtocol

extension GroupProfile {
    init(_ group: Group) {
        self.init(
            groupID: group.id,
            name: group.name,
            type: group.type.rawValue,
            owner: group.ownerID,
            memberCount: group.memberCount,
            memberLimit: GroupPolicy.of(group.type).memberLimit,
            introduction: group.introduction,
            notification: group.notification,
            faceURL: group.faceURL,
            addOpt: group.addOption.rawValue,
            allMuted: group.allMuted,
            custom: group.custom,
            createdAt: group.createdAt,
            modifiedAt: group.modifiedAt
        )
    }
}

extension GroupMemberDetail {
    init(_ member: MemberInfo) {
        self.init(
            userID: member.userID,
            role: member.role.rawValue,
            joinedAt: member.joinedAt,
            nameCard: member.nameCard,
            nickName: member.nickName,
            muteUntil: member.muteUntil,
            receiveOption: member.receiveOption.rawValue,
            custom: member.custom
        )
    }
}

extension GroupApplicationInfo {
    init(_ application: JoinApplication) {
        self.init(
            applicationID: application.id,
            groupID: application.groupID,
            fromUser: application.fromUser,
            type: "JOIN",
            requestMsg: application.message,
            status: application.status.rawValue,
            handledBy: application.handledBy,
            handledMsg: application.handledMessage,
            createdAt: application.createdAt,
            handledAt: application.handledAt
        )
    }
}

extension GroupTypeRules {
    init(_ policy: GroupPolicy) {
        self.init(
            type: policy.type.rawValue,
            roles: GroupRole.allCases.filter { policy.roles.contains($0) }.map(\.rawValue),
            kiiRules: policy.kiiRules,
            join: policy.join == .addedOnly ? "addedOnly" : "byAddOpt",
            defaultAddOpt: policy.defaultAddOption.rawValue,
            invite: policy.invite.names,
            ownerMayQuit: policy.ownerMayQuit,
            editProfile: policy.editProfile.names,
            kick: policy.kick.names,
            mute: policy.mute.names,
            dismiss: policy.dismiss.names,
            transferOwner: policy.transfer.names,
            setMemberRole: policy.setRole.names,
            handleApplications: policy.approve.names,
            readMembers: policy.readMembers.names,
            memberLimit: policy.memberLimit,
            unreadCounts: policy.unreadCounts,
            preJoinHistory: policy.preJoinHistory,
            memberEvents: policy.memberEvents,
            roleEvents: policy.roleEvents,
            muteEvents: policy.muteEvents,
            quitEvent: policy.quitEvent,
            inJoinedList: policy.inJoinedList,
            attributes: policy.attributes
        )
    }
}

extension MethodRegistry {
    /// The IM group methods (Tencent's group management) over ``GroupService``.
    mutating func registerIMGroupMethods(_ groups: GroupService) {
        let types = GroupMethods.Types.Result(types: GroupType.allCases.map { GroupTypeRules(GroupPolicy.of($0)) })
        self.registerInline(GroupMethods.Types.self) { _, _ in types }
        self.register(GroupMethods.Join.self) { params, context in
            switch try await groups.join(caller: context.caller, groupID: params.groupID, message: params.message ?? "") {
            case .joined: .init(status: "JOINED")
            case .pending(let application): .init(status: "PENDING", applicationID: application.id)
            }
        }
        self.register(GroupMethods.Applications.self) { params, context in
            let page = try await groups.applications(caller: context.caller, groupID: params.groupID, cursor: params.nextSeq ?? 0)
            return .init(applications: page.applications.map(GroupApplicationInfo.init), unreadCount: page.pending, nextSeq: page.next)
        }
        self.register(GroupMethods.AcceptApplication.self) { params, context in
            try await groups.handleApplication(
                caller: context.caller,
                groupID: params.groupID,
                applicationID: params.applicationID,
                accept: true,
                message: params.message ?? ""
            )
            return true
        }
        self.register(GroupMethods.RefuseApplication.self) { params, context in
            try await groups.handleApplication(
                caller: context.caller,
                groupID: params.groupID,
                applicationID: params.applicationID,
                accept: false,
                message: params.message ?? ""
            )
            return true
        }
        self.register(GroupMethods.Quit.self) { params, context in
            try await groups.quit(caller: context.caller, groupID: params.groupID)
            return true
        }
        self.register(GroupMethods.Dismiss.self) { params, context in
            try await groups.delete(caller: context.caller, groupID: params.groupID)
            return true
        }
        self.register(GroupMethods.JoinedList.self) { params, context in
            .init(groups: try await groups.joinedList(caller: context.caller, userID: params.userID).map(GroupProfile.init))
        }
        self.register(GroupMethods.GetInfo.self) { params, context in
            let lookup = try await groups.getInfo(caller: context.caller, groupIDs: params.groupIDs)
            return .init(groups: lookup.groups.map(GroupProfile.init), notFound: lookup.notFound, dismissed: lookup.dismissed)
        }
        self.register(GroupMethods.SetInfo.self) { params, context in
            let change = ProfileChange(
                name: params.name,
                introduction: params.introduction,
                notification: params.notification,
                faceURL: params.faceURL,
                addOption: params.addOpt.map(domain),
                allMuted: params.allMuted,
                custom: params.custom
            )
            return GroupProfile(try await groups.setInfo(caller: context.caller, groupID: params.groupID, change: change))
        }
        self.register(GroupMethods.SetReceiveOption.self) { params, context in
            let option: ReceiveOption = domain(params.option)
            try await groups.setReceiveOption(caller: context.caller, groupID: params.groupID, option: option)
            return true
        }
        self.registerAttributeMethods(groups)
        self.register(GroupMethods.MemberList.self) { params, context in
            let filter: GroupService.MemberFilter = params.filter.map(domain) ?? .all
            let page = try await groups.memberList(
                caller: context.caller,
                groupID: params.groupID,
                filter: filter,
                nextSeq: params.nextSeq ?? 0,
                limit: params.limit ?? 50
            )
            return .init(members: page.members.map(GroupMemberDetail.init), nextSeq: page.nextSeq)
        }
        self.register(GroupMethods.MembersInfo.self) { params, context in
            .init(
                members: try await groups.membersInfo(caller: context.caller, groupID: params.groupID, userIDs: params.userIDs).map(
                    GroupMemberDetail.init
                )
            )
        }
        self.register(GroupMethods.SetMemberInfo.self) { params, context in
            let change = GroupService.MemberChange(
                nameCard: params.nameCard,
                role: params.role.map(domain),
                muteUntil: params.muteUntil,
                custom: params.custom
            )
            try await groups.setMemberInfo(caller: context.caller, groupID: params.groupID, userID: params.userID, change: change)
            return true
        }
        self.register(GroupMethods.MuteMember.self) { params, context in
            .init(
                muteUntil: try await groups.muteMember(
                    caller: context.caller,
                    groupID: params.groupID,
                    userID: params.userID,
                    seconds: params.seconds
                )
            )
        }
        self.register(GroupMethods.SetMemberRole.self) { params, context in
            let role: GroupRole = domain(params.role)
            try await groups.setMemberRole(caller: context.caller, groupID: params.groupID, userID: params.userID, role: role)
            return true
        }
        self.register(GroupMethods.TransferOwner.self) { params, context in
            GroupInfo(try await groups.changeOwner(caller: context.caller, groupID: params.groupID, userID: params.userID))
        }
    }

    private mutating func registerAttributeMethods(_ groups: GroupService) {
        self.registerAttributeWrite(GroupMethods.InitAttributes.self, groups) { .initialize($0.attributes) }
        self.registerAttributeWrite(GroupMethods.SetAttributes.self, groups) { .set($0.attributes) }
        self.register(GroupMethods.DeleteAttributes.self) { params, context in
            .init(
                try await groups.writeAttributes(
                    caller: context.caller,
                    groupID: params.groupID,
                    write: .delete(params.keys),
                    version: params.version
                )
            )
        }
        self.register(GroupMethods.GetAttributes.self) { params, context in
            .init(try await groups.attributes(caller: context.caller, groupID: params.groupID, keys: params.keys))
        }
    }

    private mutating func registerAttributeWrite<M: RPCMethod>(
        _ method: M.Type,
        _ groups: GroupService,
        _ write: @escaping @Sendable (GroupMethods.AttributesWrite) -> GroupService.AttributeWrite
    ) where M.Params == GroupMethods.AttributesWrite, M.Result == GroupMethods.AttributesResult {
        self.register(M.self) { params, context in
            .init(try await groups.writeAttributes(caller: context.caller, groupID: params.groupID, write: write(params), version: params.version))
        }
    }
}

extension GroupMethods.AttributesResult {
    init(_ attributes: GroupAttributes) {
        self.init(attributes: attributes.values, version: attributes.version)
    }
}
