/// Which user may replay an area's events, as data: the tables an engine keeps each event's
/// ``ReplayAudience`` in, and the audience tags that admit without them. Both engines turn one rule into their
/// SQL (`GuildStore`'s and `GuildPostgres`'s `ReplayRule` extensions), so an area states its replay rule once.
///
/// A user may replay an event of the area when the event's audience tag is ``everyoneTag``; or a row of
/// ``readers`` names them (or, with ``readersMatchInstallation``, the installation they subscribe through);
/// or a row of ``groups`` names a group they were a member of at the event; or the tag is ``topicMembersTag``
/// and they were a member, at the event, of the group its topic names; and, in every case, no row of
/// ``excluded`` names them.
public struct ReplayRule: Sendable, Hashable {
    /// A table of `(seq, <column>)` rows naming who may replay each event; `column` as SQLite spells it
    /// (PostgreSQL's is its snake_case).
    public struct Readers: Sendable, Hashable {
        public var table: String
        public var column: String

        public init(table: String, column: String) {
            self.table = table
            self.column = column
        }
    }

    public var readers: Readers
    /// Whether ``readers`` may name the subscription's installation (`installation:<id>`) instead of the user.
    public var readersMatchInstallation: Bool
    /// A table of `(seq, groupID)` rows: the members of those groups at the time may replay the event.
    public var groups: String?
    /// An audience tag that lets every user replay the event.
    public var everyoneTag: String?
    /// An audience tag that lets the members, at the time, of the topic's group replay it (its topic is
    /// `group:<groupID>`); the events' ``ReplayAudience/joined`` and ``ReplayAudience/left`` keep that
    /// membership's history.
    public var topicMembersTag: String?
    /// A table of `(seq, userID)` rows: users who never replay the event.
    public var excluded: String?

    /// A rule.
    public init(
        readers: Readers,
        readersMatchInstallation: Bool = false,
        groups: String? = nil,
        everyoneTag: String? = nil,
        topicMembersTag: String? = nil,
        excluded: String? = nil
    ) {
        self.readers = readers
        self.readersMatchInstallation = readersMatchInstallation
        self.groups = groups
        self.everyoneTag = everyoneTag
        self.topicMembersTag = topicMembersTag
        self.excluded = excluded
    }

    /// The tables the rule records rows in (readers, groups, excluded), for pruning.
    public var tables: [String] { [self.readers.table] + [self.groups, self.excluded].compactMap { $0 } }
}
