import GuildJSON

extension GroupEvent: LoggableEvent {
    /// `group:<groupID>`.
    public var topic: EventTopic { .group(self.groupID) }

    public var kindName: String { self.kind.rawValue }

    /// `members` or `named`. An admins-only event is stored as `named` with no named users, which replay
    /// shows to nobody but subscribers watching everything; a live-only one as `live`, which likewise replays
    /// to nobody else.
    public var audienceTag: String { self.liveOnly ? "live" : self.audience == .members ? "members" : "named" }

    /// Members of the group when it happened (for `.members`) and the users it names; nobody but subscribers
    /// watching everything for `.admins`.
    public var routing: EventRouting {
        EventRouting(
            addressees: self.audience == .members ? self.users : self.namedRecipients,
            joining: self.joined,
            leaving: self.left,
            followersSee: self.audience == .members,
            excluded: self.excluded
        )
    }

    /// The users it names (nobody for an admins-only event), the members it skips, and the membership it opens
    /// and closes.
    public var replayAudience: ReplayAudience {
        ReplayAudience(readers: Array(Set(self.namedRecipients)), excluded: Array(Set(self.excluded)), joined: self.joined, left: self.left)
    }

    public func encodeBody() throws -> [UInt8] {
        let body = EventBody(self)
        assert(EventField.check(GroupEventAudience(), members: body.memberNames, kind: self.kind.rawValue))
        return body.jsonBytes
    }
}

extension EventTopic {
    /// The topic of a group's events: `group:<groupID>`.
    public static func group(_ groupID: String) -> EventTopic {
        EventTopic(area: GroupEventAudience.groupArea, id: groupID)
    }
}

extension CommittedEvent {
    /// The group event, when this is one.
    public var groupEvent: GroupEvent? { self.payload(as: GroupEvent.self)?.event }
}

extension EventSnapshot {
    /// The groups the user was a member of at the snapshot's head: the `group:` topics they follow.
    public var groups: Set<String> {
        Set(self.following.lazy.filter { $0.area == GroupEventAudience.groupArea }.map { String($0.id) })
    }
}
