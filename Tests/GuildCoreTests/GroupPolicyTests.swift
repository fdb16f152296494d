import GuildCore
import Testing

/// The group policy table read through `GroupPolicy.of`, checked rule by rule against the table in
/// protocol/im-groups.md ("The table"), whose Basic column is Kii's groups.
struct GroupPolicyTests {
    @Test func onlyBasicFollowsKiiRulesAndReAddingAMemberSucceedsThereOnly() {
        for type in GroupType.allCases {
            let policy = GroupPolicy.of(type)
            #expect(policy.type == type)
            #expect(policy.kiiRules == (type == .basic), "\(type)")
            #expect(policy.addExisting == (type == .basic ? .succ : .invalid), "\(type)")
        }
    }

    @Test func adminsExistInPublicMeetingAndCommunityOnly() {
        #expect(GroupPolicy.of(.basic).roles == [.owner, .member])
        #expect(GroupPolicy.of(.work).roles == [.owner, .member])
        #expect(GroupPolicy.of(.avChatRoom).roles == [.owner, .member])
        for type in [GroupType.public, .meeting, .community] {
            #expect(GroupPolicy.of(type).roles == [.owner, .admin, .member], "\(type)")
        }
    }

    @Test func basicAndWorkAreInvitationOnlyTheOthersFollowTheirAddOption() {
        #expect(GroupPolicy.of(.basic).join == .addedOnly)
        #expect(GroupPolicy.of(.work).join == .addedOnly)
        let defaults: [GroupType: AddOption] = [.public: .auth, .meeting: .any, .avChatRoom: .any, .community: .any]
        for (type, option) in defaults {
            #expect(GroupPolicy.of(type).join == .byAddOption, "\(type)")
            #expect(GroupPolicy.of(type).defaultAddOption == option, "\(type)")
        }
    }

    @Test func whoMayInvite() {
        #expect(GroupPolicy.of(.basic).invite == [.owner, .appAdmin])
        #expect(GroupPolicy.of(.work).invite == [.owner, .admin, .member, .appAdmin])
        for type in [GroupType.public, .meeting, .community] {
            #expect(GroupPolicy.of(type).invite == .appAdmin, "\(type): only the server API adds members")
        }
        #expect(GroupPolicy.of(.avChatRoom).invite.isEmpty)
    }

    @Test func onlyAWorkGroupsOwnerMayQuit() {
        for type in GroupType.allCases {
            #expect(GroupPolicy.of(type).ownerMayQuit == (type == .work), "\(type)")
        }
    }

    @Test func whoMayKickMuteAndDismiss() {
        #expect(GroupPolicy.of(.basic).kick == [.owner, .appAdmin])
        #expect(GroupPolicy.of(.work).kick == [.owner, .appAdmin])
        #expect(GroupPolicy.of(.avChatRoom).kick.isEmpty)
        #expect(GroupPolicy.of(.basic).mute.isEmpty)
        #expect(GroupPolicy.of(.work).mute.isEmpty)
        #expect(GroupPolicy.of(.avChatRoom).mute == [.owner, .appAdmin])
        for type in [GroupType.public, .meeting, .community] {
            #expect(GroupPolicy.of(type).kick == [.owner, .admin, .appAdmin], "\(type)")
            #expect(GroupPolicy.of(type).mute == [.owner, .admin, .appAdmin], "\(type)")
        }
        // A Work group is dismissed by the server API only; every other type by its owner.
        #expect(GroupPolicy.of(.work).dismiss == .appAdmin)
        for type in GroupType.allCases where type != .work {
            #expect(GroupPolicy.of(type).dismiss == [.owner, .appAdmin], "\(type)")
        }
    }

    @Test func ownershipAndRolesChangeHands() {
        #expect(GroupPolicy.of(.avChatRoom).transfer.isEmpty)
        for type in GroupType.allCases where type != .avChatRoom {
            #expect(GroupPolicy.of(type).transfer == [.owner, .appAdmin], "\(type)")
        }
        for type in GroupType.allCases {
            let hasAdmins = GroupPolicy.of(type).roles.contains(.admin)
            #expect(GroupPolicy.of(type).setRole == (hasAdmins ? [.owner, .appAdmin] : []), "\(type)")
        }
    }

    @Test func applicationsAreHandledWhereJoiningCanNeedApproval() {
        #expect(GroupPolicy.of(.basic).approve.isEmpty)
        #expect(GroupPolicy.of(.work).approve.isEmpty)
        #expect(GroupPolicy.of(.avChatRoom).approve == [.owner, .appAdmin])
        for type in [GroupType.public, .meeting, .community] {
            #expect(GroupPolicy.of(type).approve == [.owner, .admin, .appAdmin], "\(type)")
        }
    }

    @Test func anyoneWithASessionListsABasicGroupsMembersOnlyMembersOthers() {
        #expect(GroupPolicy.of(.basic).readMembers.contains(.outsider))
        for type in GroupType.allCases where type != .basic {
            #expect(!GroupPolicy.of(type).readMembers.contains(.outsider), "\(type)")
            #expect(GroupPolicy.of(type).readMembers.contains(.member), "\(type)")
        }
    }

    @Test func memberLimits() {
        let limits: [GroupType: Int?] = [.basic: nil, .work: 200, .public: 2_000, .meeting: 6_000, .avChatRoom: nil, .community: 100_000]
        for (type, limit) in limits {
            #expect(GroupPolicy.of(type).memberLimit == limit, "\(type)")
        }
    }

    @Test func meetingAndAVChatRoomKeepSomeEventsFromMembers() {
        // Meeting: member, role and mute changes go to app admins only.
        let meeting = GroupPolicy.of(.meeting)
        #expect(!meeting.memberEvents && !meeting.roleEvents && !meeting.muteEvents)
        #expect(meeting.quitEvent && meeting.inJoinedList && meeting.preJoinHistory)
        // AVChatRoom: no mute events, no quitFromGroup, not in joinedList; the only type with attributes.
        let room = GroupPolicy.of(.avChatRoom)
        #expect(room.memberEvents && !room.muteEvents && !room.quitEvent && !room.inJoinedList)
        for type in GroupType.allCases {
            #expect(GroupPolicy.of(type).attributes == (type == .avChatRoom), "\(type)")
        }
        for type in [GroupType.basic, .work, .public, .community] {
            let policy = GroupPolicy.of(type)
            #expect(policy.memberEvents && policy.roleEvents && policy.muteEvents && policy.quitEvent, "\(type)")
        }
    }

    @Test func tableHasEveryTypeAndNamesStandingsAsGroupTypesShowsThem() {
        #expect(Set(GroupPolicy.table.keys) == Set(GroupType.allCases))
        #expect(Actors.anyone.names == ["owner", "admin", "member", "nonMember", "appAdmin"])
        #expect(Actors.ownerOrAppAdmin.names == ["owner", "appAdmin"])
        #expect(Actors.nobody.names.isEmpty)
    }

    @Test func aRuleAllowsACallerWithAnyOfItsStandings() {
        #expect(GroupPolicy.allows(.managers, [.admin]))
        #expect(GroupPolicy.allows(.ownerOrAppAdmin, [.member, .appAdmin]))
        #expect(!GroupPolicy.allows(.ownerOrAppAdmin, [.admin, .member]))
        #expect(!GroupPolicy.allows(.nobody, [.owner, .appAdmin]))
        #expect(!GroupPolicy.allows(.anyMember, [.outsider]))
        #expect(!GroupPolicy.allows(.anyone, []))
    }

    @Test func inviteesPerCall() {
        #expect(GroupPolicy.maximumInvitees == 20)
        #expect(GroupPolicy.maximumAdminInvitees == 300)
    }
}
