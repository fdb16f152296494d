import GuildJSON

extension GroupService {
    /// What `group.join` did.
    public enum JoinOutcome: Sendable, Hashable {
        /// The caller is a member now.
        case joined
        /// The caller's application waits for the owner or an admin.
        case pending(JoinApplication)
    }

    /// Adds (invites) members, per the policy's `invite`. Per user: `SUCC`; `INVALID` for an existing member
    /// under Tencent's rules (`SUCC` under Kii's); `FAIL` with `USER_NOT_FOUND` or `GROUP_FULL`; `OVERLIMIT` for a
    /// user in too many groups. Under Tencent's rules a call whose every user is already a member fails with
    /// 10013, and a client names at most 20 users (an app admin 300).
    public func addMembers(caller: Caller, groupID: String, userIDs: [String]) async throws -> [MemberOutcome] {
        let invitees = Self.unique(userIDs)
        return try await self.store.write { tx in
            let context = try self.load(tx, caller, groupID)
            let policy = context.policy
            try context.require(policy.invite, "add members")
            if !policy.kiiRules {
                let cap = context.standing.contains(.appAdmin) ? GroupPolicy.maximumAdminInvitees : GroupPolicy.maximumInvitees
                guard invitees.count <= cap else {
                    throw GuildError(.imInvalidParameters, "at most \(cap) users may be invited in one call", field: "userIDs")
                }
            }
            var outcomes: [MemberOutcome] = []
            var added: [String] = []
            var count = context.group.memberCount
            for userID in invitees {
                let invitee = try tx.groups.invitee(groupID: groupID, userID: userID)
                if invitee.membership != nil {
                    outcomes.append(MemberOutcome(userID: userID, result: policy.addExisting))
                } else if !invitee.exists {
                    outcomes.append(MemberOutcome(userID: userID, result: .fail, reason: "USER_NOT_FOUND"))
                } else if let limit = policy.memberLimit, count >= limit {
                    outcomes.append(MemberOutcome(userID: userID, result: .fail, reason: "GROUP_FULL"))
                } else if !policy.kiiRules, try tx.imGroups.membershipCount(userID: userID) >= self.maximumGroupsPerUser {
                    outcomes.append(MemberOutcome(userID: userID, result: .overlimit))
                } else {
                    try tx.groups.insertMember(groupID: groupID, userID: userID, role: .member, now: context.now)
                    outcomes.append(MemberOutcome(userID: userID, result: .succ))
                    added.append(userID)
                    count += 1
                }
            }
            if !policy.kiiRules, !outcomes.isEmpty, outcomes.allSatisfy({ $0.result == .invalid }) {
                throw GuildError(.alreadyMember, "every user named is already a member of \(groupID)", field: "userIDs")
            }
            if !added.isEmpty {
                try tx.append(context.event(.memberInvited, users: added, audience: context.memberAudience, joined: added))
            }
            return outcomes
        }
    }

    /// Removes members. Under Kii's rules a member may remove themself (`memberLeave` to the others,
    /// `quitFromGroup` to them) and each user gets a result. Under Tencent's rules this is a kick: the policy's
    /// `kick` decides, nobody kicks the owner, admins kick only ordinary members, and a refusal fails the whole
    /// call (10007); users who are not members get `INVALID`.
    public func removeMembers(caller: Caller, groupID: String, userIDs: [String]) async throws -> [MemberOutcome] {
        try await self.store.write { tx in
            let context = try self.load(tx, caller, groupID)
            if context.policy.kiiRules {
                return try self.removeKii(tx, context, Self.unique(userIDs))
            }
            try context.require(context.policy.kick, "remove members")
            var outcomes: [MemberOutcome] = []
            var targets: [String] = []
            for userID in Self.unique(userIDs) {
                guard let target = try tx.groups.membership(groupID: groupID, userID: userID) else {
                    outcomes.append(MemberOutcome(userID: userID, result: .invalid, reason: "NOT_A_MEMBER"))
                    continue
                }
                if userID == context.actor {
                    throw GuildError(.notAllowed, "a member leaves with group.quit, not by removing themself", field: "userIDs")
                }
                try context.requireAuthority(over: target, "remove")
                targets.append(userID)
                outcomes.append(MemberOutcome(userID: userID, result: .succ))
            }
            for userID in targets { try tx.groups.deleteMember(groupID: groupID, userID: userID) }
            if !targets.isEmpty {
                try tx.append(context.event(.memberKicked, users: targets, audience: context.memberAudience, left: targets))
            }
            return outcomes
        }
    }

    private func removeKii(_ tx: any Transaction, _ context: Context, _ userIDs: [String]) throws -> [MemberOutcome] {
        let groupID = context.group.id
        var outcomes: [MemberOutcome] = []
        var kicked: [String] = []
        for userID in userIDs {
            guard let target = try tx.groups.membership(groupID: groupID, userID: userID) else {
                outcomes.append(MemberOutcome(userID: userID, result: .fail, reason: "NOT_A_MEMBER"))
                continue
            }
            if target.role == .owner {
                outcomes.append(MemberOutcome(userID: userID, result: .fail, reason: "OWNER_CANNOT_LEAVE"))
                continue
            }
            if context.actor == userID {
                try self.leave(tx, context, userID)
                outcomes.append(MemberOutcome(userID: userID, result: .succ))
                continue
            }
            guard GroupPolicy.allows(context.policy.kick, context.standing) else {
                outcomes.append(MemberOutcome(userID: userID, result: .fail, reason: "PERMISSION_DENIED"))
                continue
            }
            try tx.groups.deleteMember(groupID: groupID, userID: userID)
            kicked.append(userID)
            outcomes.append(MemberOutcome(userID: userID, result: .succ))
        }
        if !kicked.isEmpty {
            try tx.append(context.event(.memberKicked, users: kicked, audience: context.memberAudience, left: kicked))
        }
        return outcomes
    }

    /// The caller leaves: `memberLeave` to the members, `quitFromGroup` to the quitter (where the type sends it).
    private func leave(_ tx: any Transaction, _ context: Context, _ userID: String) throws {
        try tx.groups.deleteMember(groupID: context.group.id, userID: userID)
        try tx.append(context.event(.memberLeave, users: [userID], audience: context.memberAudience, left: [userID]))
        if context.policy.quitEvent {
            try tx.append(context.event(.quitFromGroup, users: [userID], audience: .named))
        }
    }

    /// `group.join`: joins at once (`ANY`), applies (`AUTH`: the owner and admins get
    /// `receiveJoinApplication`), or is refused (`FORBID`, or a type joined only by invitation).
    public func join(caller: Caller, groupID: String, message: String) async throws -> JoinOutcome {
        let userID = try caller.requireUserID()
        try GroupRules.validateBytes(message, max: GroupRules.Limit.requestMessage, field: "message")
        return try await self.store.write { tx in
            let context = try self.load(tx, caller, groupID)
            let policy = context.policy
            guard policy.join == .byAddOption else {
                throw GuildError(.unsupported, "\(policy.type.rawValue) groups are joined only by being added")
            }
            if context.membership != nil {
                throw GuildError(.alreadyMember, "the caller is already a member of \(groupID)")
            }
            switch context.group.addOption {
            case .forbid:
                throw GuildError(.notAllowed, "group \(groupID) does not accept join requests (addOpt FORBID)")
            case .auth:
                if let pending = try tx.imGroups.pendingApplication(groupID: groupID, fromUser: userID) { return .pending(pending) }
                let application = try tx.imGroups.insertApplication(groupID: groupID, fromUser: userID, message: message, now: context.now)
                try tx.append(
                    context.event(
                        .receiveJoinApplication,
                        users: [userID],
                        changes: ["applicationID": .int(application.id), "message": .string(message)],
                        audience: .named,
                        recipients: try tx.imGroups.managerIDs(groupID: groupID)
                    )
                )
                return .pending(application)
            case .any:
                try self.enter(tx, context, userID)
                return .joined
            }
        }
    }

    /// Makes `userID` a member (joined or accepted): `memberEnter` to the members, the new one included.
    private func enter(_ tx: any Transaction, _ context: Context, _ userID: String) throws {
        if let limit = context.policy.memberLimit, context.group.memberCount >= limit {
            throw GuildError(.groupFull, "group \(context.group.id) has its \(limit) members")
        }
        try tx.groups.insertMember(groupID: context.group.id, userID: userID, role: .member, now: context.now)
        try tx.append(context.event(.memberEnter, users: [userID], audience: context.memberAudience, joined: [userID]))
    }

    /// `group.quit`: the caller leaves. The owner may quit only where the policy allows it (else 10009); the
    /// longest-standing member then becomes owner, and a group left empty is dismissed.
    public func quit(caller: Caller, groupID: String) async throws {
        let userID = try caller.requireUserID()
        try await self.store.write { tx in
            let context = try self.load(tx, caller, groupID)
            guard let membership = context.membership else {
                throw GuildError(.notAMember, "the caller is not a member of \(groupID)")
            }
            guard membership.role == .owner else { return try self.leave(tx, context, userID) }
            guard context.policy.ownerMayQuit else {
                throw GuildError(.ownerCannotQuit, "the owner may not quit a \(context.policy.type.rawValue) group: transfer it or dismiss it")
            }
            guard let successor = try tx.imGroups.longestStandingMember(groupID: groupID, excluding: userID) else {
                return try self.dismiss(tx, context)
            }
            try self.leave(tx, context, userID)
            try tx.groups.setRole(groupID: groupID, userID: successor, role: .owner)
            try tx.imGroups.setMute(groupID: groupID, userID: successor, until: 0)
            try tx.groups.touchGroup(id: groupID, now: context.now)
            try tx.append(
                context.event(
                    .groupInfoChanged,
                    users: [successor],
                    changes: ProfileChange.eventChanges(["owner": .string(successor), "previousOwner": .string(userID)])
                )
            )
        }
    }

    /// A page of a group's join applications, newest first, pending and handled (owner and admins).
    public func applications(
        caller: Caller,
        groupID: String,
        cursor: Int64
    ) async throws -> (
        applications: [JoinApplication], pending: Int, next: Int64
    ) {
        try await self.store.read { tx in
            let context = try self.load(tx, caller, groupID)
            try context.require(context.policy.approve, "handle join applications")
            let page = try tx.imGroups.applications(groupID: groupID, before: cursor, limit: Self.maximumIMPage + 1)
            let more = page.applications.count > Self.maximumIMPage
            let applications = Array(page.applications.prefix(Self.maximumIMPage))
            return (applications, page.pending, more ? applications[applications.count - 1].id : 0)
        }
    }

    /// Accepts or refuses a pending application (owner and admins). The applicant alone gets
    /// `applicationProcessed`; on acceptance everyone gets `memberEnter`. Handling twice gives 10024.
    public func handleApplication(caller: Caller, groupID: String, applicationID: Int64, accept: Bool, message: String) async throws {
        try GroupRules.validateBytes(message, max: GroupRules.Limit.requestMessage, field: "message")
        try await self.store.write { tx in
            let context = try self.load(tx, caller, groupID)
            try context.require(context.policy.approve, "handle join applications")
            guard let application = try tx.imGroups.application(id: applicationID), application.groupID == groupID else {
                throw GuildError(.imInvalidParameters, "no application \(applicationID) to group \(groupID)", field: "applicationID")
            }
            guard application.status == .pending else {
                throw GuildError(.alreadyProcessed, "application \(applicationID) was already \(application.status.rawValue.lowercased())")
            }
            let alreadyMember = try tx.groups.membership(groupID: groupID, userID: application.fromUser) != nil
            if accept && !alreadyMember { try self.enter(tx, context, application.fromUser) }
            try tx.imGroups.handleApplication(
                id: applicationID,
                status: accept ? .accepted : .refused,
                by: context.actor,
                message: message,
                now: context.now
            )
            try tx.append(
                context.event(
                    .applicationProcessed,
                    users: [application.fromUser],
                    changes: ["applicationID": .int(applicationID), "accepted": .bool(accept), "message": .string(message)],
                    audience: .named
                )
            )
        }
    }
}
