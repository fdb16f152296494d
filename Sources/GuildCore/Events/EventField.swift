/// One member of an area's event bodies: its name, the JSON it holds, and which kinds carry it. Each area
/// declares its members once (``EventAudience/fields``); the wire's event type and the contract's event
/// schemas are generated from the declarations (`scripts/gen-contract`), and a debug build checks every
/// event an area appends against them.
public struct EventField: Sendable, Hashable {
    /// The JSON a member holds.
    public enum Shape: String, Sendable, Hashable, CaseIterable {
        case string
        case integer
        case boolean
        /// An array of strings.
        case strings
        /// A JSON object.
        case object
        /// An array of any JSON values.
        case values
        /// An array of `{action, subject}` ACL entries.
        case aclEntries
    }

    /// The member's name in the event's JSON object.
    public var name: String
    public var shape: Shape
    /// What it holds, for the contract and the generated type's documentation.
    public var summary: String
    /// The kinds that carry it; empty for every kind of the area.
    public var kinds: [String]
    /// Whether every event of those kinds has it (else it may be absent).
    public var always: Bool
    /// Whether it may be JSON `null`.
    public var nullable: Bool

    /// Declares a member.
    public init(_ name: String, _ shape: Shape, always: Bool = false, nullable: Bool = false, kinds: [String] = [], _ summary: String) {
        self.name = name
        self.shape = shape
        self.summary = summary
        self.kinds = kinds
        self.always = always
        self.nullable = nullable
    }

    /// The members every event has, whatever its area: `seq` (which the log assigns), `kind` and `time`.
    public static let common: [EventField] = [
        EventField("seq", .integer, always: true, "The global, gap-free sequence number"),
        EventField("kind", .string, always: true, "What happened: one of the area's kinds"),
        EventField("time", .integer, always: true, "When, ms since the Unix epoch"),
    ]
}

extension EventAudience {
    /// The names an event of this area may carry: the common members and the area's own.
    public var fieldNames: Set<String> { Set((EventField.common + self.fields).map(\.name)) }

    /// What is wrong with an event body's member names against the declarations: a member not declared, or
    /// one its kind always has missing; empty when nothing is. Debug builds check every appended event.
    public func violations(members: some Collection<String>, kind: String) -> [String] {
        let names = Set(members)
        var problems = names.subtracting(self.fieldNames).sorted().map { "\(self.area) event \(kind) has undeclared member \($0)" }
        for field in self.fields where field.always && (field.kinds.isEmpty || field.kinds.contains(kind)) && !names.contains(field.name) {
            problems.append("\(self.area) event \(kind) lacks \(field.name)")
        }
        return problems
    }
}

extension EventField {
    /// Stops a debug build, saying what differs, when an event body's members do not match `area`'s
    /// declarations. Each area calls it inside `assert` when it encodes an event, so the test suite checks
    /// every event it makes and a release build does nothing.
    public static func check(_ area: some EventAudience, members: some Collection<String>, kind: String) -> Bool {
        let violations = area.violations(members: members, kind: kind)
        if !violations.isEmpty { assertionFailure(violations.joined(separator: "; ")) }
        return true
    }
}
