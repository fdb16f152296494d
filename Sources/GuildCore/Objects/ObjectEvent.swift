import GuildJSON

/// A change in a bucket, for the event log: an object created, updated or deleted, a bucket dropped, an ACL
/// changed. Its topic is the bucket's (`bucket:<scope>/<bucket>`; a scope's ACL: `bucket:<scope>`), and it
/// reaches only those who could read what changed at the time of the change (``readers``): an object's body
/// never reaches anyone else, live or on replay.
public struct ObjectEvent: LoggableEvent {
    /// The kinds of object events (Kii's bucket push events are the model).
    public enum Kind: String, CaseIterable, Sendable {
        case objectCreated, objectUpdated, objectDeleted, bucketDeleted, aclChanged
    }

    public var kind: Kind
    public var scope: ObjectScope
    /// The bucket; nil for a change to a scope's ACL.
    public var bucket: String?
    public var objectID: String?
    /// The object as it is after the change (created and updated).
    public var object: [String: JSONValue]?
    /// ACL entries granted and revoked (aclChanged): `{action, subject}` pairs.
    public var granted: [ACLEntry] = []
    public var revoked: [ACLEntry] = []
    /// Who made the change (nil: an admin or an anonymous caller).
    public var actor: String?
    public var time: Int64
    /// Who could read what changed when it changed.
    public var readers: ObjectReaders

    public init(
        kind: Kind,
        scope: ObjectScope,
        bucket: String?,
        objectID: String? = nil,
        object: [String: JSONValue]? = nil,
        actor: String?,
        time: Int64,
        readers: ObjectReaders
    ) {
        self.kind = kind
        self.scope = scope
        self.bucket = bucket
        self.objectID = objectID
        self.object = object
        self.actor = actor
        self.time = time
        self.readers = readers
    }

    public var topic: EventTopic { .bucket(scope: self.scope, name: self.bucket) }
    public var kindName: String { self.kind.rawValue }
    public var audienceTag: String { self.readers.everyone ? "everyone" : "readers" }

    public var routing: EventRouting {
        EventRouting(
            addressees: self.readers.users,
            followersOf: self.readers.groups.map(EventTopic.group),
            everyone: self.readers.everyone
        )
    }

    /// Who could read what changed: named users and the members of groups (nobody to record when everyone could).
    public var replayAudience: ReplayAudience {
        guard !self.readers.everyone else { return ReplayAudience() }
        return ReplayAudience(readers: Array(Set(self.readers.users)), groups: Array(Set(self.readers.groups)))
    }

    public func encodeBody() throws -> [UInt8] {
        var body: [String: JSONValue] = [
            "kind": .string(self.kind.rawValue),
            "topic": .string(self.topic.rawValue),
            "scope": .string(self.scope.description),
            "time": .int(self.time),
        ]
        if let bucket { body["bucket"] = .string(bucket) }
        if let objectID { body["objectID"] = .string(objectID) }
        if let object { body["object"] = .object(object) }
        if let actor { body["actor"] = .string(actor) }
        if self.kind == .aclChanged {
            func list(_ entries: [ACLEntry]) -> JSONValue {
                .array(entries.map { ["action": .string($0.action.rawValue), "subject": .string($0.subject.description)] })
            }
            body["granted"] = list(self.granted)
            body["revoked"] = list(self.revoked)
        }
        assert(EventField.check(ObjectEventAudience(), members: body.keys, kind: self.kind.rawValue))
        return JSONValue.object(body).jsonBytes
    }
}

/// Who may read an object (or a bucket's objects) at one moment: named users, the members of groups, or
/// everyone.
public struct ObjectReaders: Hashable, Sendable {
    public var users: [String]
    public var groups: [String]
    public var everyone: Bool

    public init(users: [String] = [], groups: [String] = [], everyone: Bool = false) {
        self.users = users
        self.groups = groups
        self.everyone = everyone
    }

    /// Both sets together (an ACL change reaches who could read before and who can after).
    public func union(_ other: ObjectReaders) -> ObjectReaders {
        ObjectReaders(
            users: Array(Set(self.users).union(other.users)).sorted(),
            groups: Array(Set(self.groups).union(other.groups)).sorted(),
            everyone: self.everyone || other.everyone
        )
    }
}

/// The objects area's audience rule: an event reaches the readers it names (``ObjectEvent/readers``), and
/// only subscriptions that ask for its bucket (``EventAudience/namedTopicsOnly``).
public struct ObjectEventAudience: EventAudience {
    /// `bucket`.
    public static let bucketArea = "bucket"

    public var area: String { Self.bucketArea }
    public var kinds: [String] { ObjectEvent.Kind.allCases.map(\.rawValue) }

    public var fields: [EventField] {
        let objectChanges = [ObjectEvent.Kind.objectCreated, .objectUpdated, .objectDeleted].map(\.rawValue)
        let acl = [ObjectEvent.Kind.aclChanged.rawValue]
        return [
            EventField("topic", .string, always: true, "bucket:<scope>/<bucket>, or bucket:<scope> for a scope's ACL"),
            EventField("scope", .string, always: true, "The scope: app, user:<userID>, group:<groupID> or thing:<thingID>"),
            EventField("bucket", .string, "The bucket; absent for a change to a scope's ACL"),
            EventField("objectID", .string, always: true, kinds: objectChanges, "The object"),
            EventField(
                "object",
                .object,
                kinds: [ObjectEvent.Kind.objectCreated, .objectUpdated].map(\.rawValue),
                "The object after the change, with its reserved fields"
            ),
            EventField("actor", .string, "Who made the change; absent for an admin or an anonymous caller"),
            EventField("granted", .aclEntries, always: true, kinds: acl, "The ACL entries the change granted"),
            EventField("revoked", .aclEntries, always: true, kinds: acl, "The ACL entries the change revoked"),
        ]
    }
    public var namedTopicsOnly: Bool { true }

    /// Everyone, for an event everyone could read (tag `everyone`); else its readers and the members of its
    /// groups at the time.
    public var replay: ReplayRule {
        ReplayRule(
            readers: .init(table: "object_event_reader", column: "userID"),
            groups: "object_event_group",
            everyoneTag: "everyone"
        )
    }

    public init() {}
}

extension EventTopic {
    /// The topic of a bucket's events, `bucket:<scope>/<name>`; of a scope's ACL changes, `bucket:<scope>`.
    public static func bucket(scope: ObjectScope, name: String?) -> EventTopic {
        EventTopic(area: ObjectEventAudience.bucketArea, id: name.map { scope.description + "/" + $0 } ?? scope.description)
    }
}
