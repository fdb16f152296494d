extension GroupService {
    /// What `group.getInfo` found for the ids asked.
    public struct InfoLookup: Sendable {
        public var groups: [Group]
        public var notFound: [String]
        public var dismissed: [String]
    }

    /// The most ids `group.getInfo` takes at once.
    public static let maximumInfoIDs = 100

    /// Renames a group (who may: the policy's `editProfile`).
    public func rename(caller: Caller, groupID: String, name: String) async throws -> Group {
        try await self.setInfo(caller: caller, groupID: groupID, change: ProfileChange(name: name))
    }

    /// Changes the profile: name, introduction, notification and face (`editProfile`), the join option
    /// (`editProfile`, types joined by add option only), custom fields (`editProfile`), and `allMuted` (the
    /// policy's `mute`). Members get `groupInfoChanged` with Tencent's change types, and `allMembersMuted`
    /// when `allMuted` changes.
    public func setInfo(caller: Caller, groupID: String, change: ProfileChange) async throws -> Group {
        try change.validate()
        return try await self.store.write { tx in
            let context = try self.load(tx, caller, groupID)
            let policy = context.policy
            if let name = change.name { try GroupRules.validateName(name, policy) }
            if change.editsProfile || change.addOption != nil { try context.require(policy.editProfile, "edit the profile") }
            if let option = change.addOption, option != context.group.addOption, policy.join == .addedOnly {
                throw GuildError(.unsupported, "\(policy.type.rawValue) groups are joined only by being added", field: "addOpt")
            }
            if change.allMuted != nil { try context.require(policy.mute, "mute the group") }
            var group = context.group
            let changed = change.apply(to: &group)
            guard !changed.isEmpty else { return group }
            group.modifiedAt = context.now
            try tx.groups.saveProfile(group)
            try tx.append(context.event(.groupInfoChanged, changes: ProfileChange.eventChanges(changed)))
            if let muted = changed["shutUpAll"] {
                try tx.append(context.event(.allMembersMuted, changes: ["muted": muted]))
            }
            return group
        }
    }

    /// Profiles of several groups at once (any caller with a session).
    public func getInfo(caller: Caller, groupIDs: [String]) async throws -> InfoLookup {
        try Self.requireReader(caller)
        let ids = Self.unique(groupIDs)
        guard ids.count <= Self.maximumInfoIDs else {
            throw GuildError(.imInvalidParameters, "at most \(Self.maximumInfoIDs) groups at once", field: "groupIDs")
        }
        return try await self.store.read { tx in
            var lookup = InfoLookup(groups: [], notFound: [], dismissed: [])
            for id in ids {
                if let group = try tx.groups.group(id) {
                    lookup.groups.append(group)
                } else if try tx.imGroups.dismissedType(id) != nil {
                    lookup.dismissed.append(id)
                } else {
                    lookup.notFound.append(id)
                }
            }
            return lookup
        }
    }

    /// The groups the caller (or, for an admin, `userID`) is a member of, without the types the policy keeps
    /// out of the list (AVChatRoom).
    public func joinedList(caller: Caller, userID: String?) async throws -> [Group] {
        let target = try self.listTarget(caller, userID)
        return try await self.store.read { try $0.groups.groups(memberOf: target) }.filter { GroupPolicy.of($0.type).inJoinedList }
    }

    /// Sets the caller's message receive option in a group (members only).
    public func setReceiveOption(caller: Caller, groupID: String, option: ReceiveOption) async throws {
        let userID = try caller.requireUserID()
        try await self.store.write { tx in
            let context = try self.load(tx, caller, groupID)
            guard context.membership != nil else { throw GuildError(.notAMember, "the caller is not a member of \(groupID)") }
            try tx.imGroups.updateMember(groupID: groupID, userID: userID, nameCard: nil, custom: nil, receiveOption: option)
        }
    }

    /// Deletes (dismisses) a group (who may: the policy's `dismiss`); its members get `groupDismissed`. A
    /// dismissed IM group's id then answers 10010.
    public func delete(caller: Caller, groupID: String) async throws {
        try await self.store.write { tx in
            let context = try self.load(tx, caller, groupID)
            try context.require(context.policy.dismiss, "dismiss the group")
            try self.dismiss(tx, context)
        }
    }

    func dismiss(_ tx: any Transaction, _ context: Context) throws {
        for step in self.deletionSteps { try step(context.group.id, tx, context.now) }
        let members = try tx.groups.memberIDs(groupID: context.group.id)
        try tx.append(context.event(.groupDismissed, left: members))
        try tx.groups.deleteGroup(id: context.group.id)
        if !context.policy.kiiRules {
            try tx.imGroups.insertTombstone(id: context.group.id, type: context.group.type, now: context.now)
        }
    }
}
