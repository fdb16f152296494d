import Foundation
import GuildJSON

/// What makes a trigger fire: Thing-IF's predicate (data-things-messages.md §4.5), one of a condition on the
/// thing's uploaded states, a repeating schedule or a single time.
///
/// On the wire and in the database it is Thing-IF's object: `{"eventSource": "STATES", "condition": {…},
/// "triggersWhen": "CONDITION_FALSE_TO_TRUE"}`, `{"eventSource": "SCHEDULE", "schedule": "0 7 * * *",
/// "timeZone": "Europe/Berlin"}` or `{"eventSource": "SCHEDULE_ONCE", "scheduleAt": 1795348702624}`. A schedule
/// given without a time zone gets the daemon's, written into the stored predicate, so the trigger keeps its
/// times when the daemon's zone changes.
public enum TriggerPredicate: Sendable, Hashable {
    /// A condition on the state's top-level fields (the objects' query clauses), evaluated at each upload.
    case states(condition: JSONValue, triggersWhen: TriggersWhen)
    /// A five-field cron schedule in a time zone.
    case schedule(CronSchedule)
    /// One time, in ms since the Unix epoch.
    case scheduleOnce(at: Int64)

    /// The wire names of the event sources.
    public static let eventSources = ["STATES", "SCHEDULE", "SCHEDULE_ONCE"]

    /// Parses a predicate object; a schedule without `timeZone` is in `defaultTimeZone`, stated as
    /// `defaultTimeZoneName` (its identifier when nil). Every failure is
    /// `invalidInput` naming `field` (or the member at fault: `field.condition`, `field.schedule`, ...).
    public init(
        json: JSONValue,
        defaultTimeZone: TimeZone,
        defaultTimeZoneName: String? = nil,
        field: String = "predicate"
    ) throws(GuildError) {
        guard let members = json.objectValue else { throw .invalidInput("a predicate is an object", field: field) }
        guard let source = members["eventSource"]?.stringValue else {
            throw .invalidInput("a predicate has an eventSource: \(Self.eventSources.joined(separator: ", "))", field: "\(field).eventSource")
        }
        let known: Set<String>
        switch source {
        case "STATES":
            known = ["eventSource", "condition", "triggersWhen"]
            guard let condition = members["condition"] else {
                throw .invalidInput("a STATES predicate has a condition", field: "\(field).condition")
            }
            _ = try ObjectClause(json: condition, field: "\(field).condition")
            var mode = TriggersWhen.conditionFalseToTrue
            if let given = members["triggersWhen"] {
                guard let name = given.stringValue, let parsed = TriggersWhen(rawValue: name) else {
                    throw .invalidInput(
                        "triggersWhen is one of \(TriggersWhen.allCases.map(\.rawValue).joined(separator: ", "))",
                        field: "\(field).triggersWhen"
                    )
                }
                mode = parsed
            }
            self = .states(condition: condition, triggersWhen: mode)
        case "SCHEDULE":
            known = ["eventSource", "schedule", "timeZone"]
            guard let expression = members["schedule"]?.stringValue else {
                throw .invalidInput("a SCHEDULE predicate has a schedule: five cron fields", field: "\(field).schedule")
            }
            var zone = defaultTimeZone
            var zoneName = defaultTimeZoneName
            if let given = members["timeZone"] {
                guard let name = given.stringValue, let named = TimeZone(identifier: name) else {
                    throw .invalidInput("timeZone is an IANA time zone name, such as Europe/Berlin or UTC", field: "\(field).timeZone")
                }
                zone = named
                zoneName = name
            }
            self = .schedule(try CronSchedule(expression, timeZone: zone, timeZoneName: zoneName, field: "\(field).schedule"))
        case "SCHEDULE_ONCE":
            known = ["eventSource", "scheduleAt"]
            guard let at = members["scheduleAt"]?.intValue, at > 0 else {
                throw .invalidInput("a SCHEDULE_ONCE predicate has scheduleAt: ms since the Unix epoch", field: "\(field).scheduleAt")
            }
            self = .scheduleOnce(at: at)
        default:
            throw .invalidInput("eventSource is one of \(Self.eventSources.joined(separator: ", "))", field: "\(field).eventSource")
        }
        if let unknown = members.keys.sorted().first(where: { !known.contains($0) }) {
            throw .invalidInput("a \(source) predicate has no member \(unknown)", field: "\(field).\(unknown)")
        }
    }

    /// A predicate as the store keeps it (written by ``json`` from a checked one): a state condition is not
    /// checked again, since each upload reads every trigger of its thing. A stored predicate that no longer
    /// parses (a time zone gone from the system's database) is `invalidInput`.
    public init(stored json: JSONValue) throws(GuildError) {
        if json["eventSource"] == "STATES", let condition = json["condition"],
            let mode = json["triggersWhen"]?.stringValue.flatMap(TriggersWhen.init(rawValue:))
        {
            self = .states(condition: condition, triggersWhen: mode)
            return
        }
        try self.init(json: json, defaultTimeZone: TimeZone(identifier: "UTC")!, field: "predicate")
    }

    /// The first triggers' form: a state condition (checked as `field`) that fires when it turns from false to
    /// true.
    public static func condition(_ condition: JSONValue, field: String = "condition") throws(GuildError) -> TriggerPredicate {
        _ = try ObjectClause(json: condition, field: field)
        return .states(condition: condition, triggersWhen: .conditionFalseToTrue)
    }

    /// The predicate as stored and shown, with a schedule's time zone always named.
    public var json: JSONValue {
        switch self {
        case .states(let condition, let mode):
            ["eventSource": "STATES", "condition": condition, "triggersWhen": .string(mode.rawValue)]
        case .schedule(let schedule):
            ["eventSource": "SCHEDULE", "schedule": .string(schedule.expression), "timeZone": .string(schedule.timeZoneName)]
        case .scheduleOnce(let at):
            ["eventSource": "SCHEDULE_ONCE", "scheduleAt": .int(at)]
        }
    }

    /// `STATES`, `SCHEDULE` or `SCHEDULE_ONCE`.
    public var eventSource: String {
        switch self {
        case .states: "STATES"
        case .schedule: "SCHEDULE"
        case .scheduleOnce: "SCHEDULE_ONCE"
        }
    }

    /// Whether it fires by time rather than by state.
    public var isSchedule: Bool {
        if case .states = self { return false }
        return true
    }

    /// The state condition, for a `STATES` predicate.
    public var condition: JSONValue? {
        if case .states(let condition, _) = self { return condition }
        return nil
    }

    /// When a schedule is next due strictly after `instant` (ms): nil for a state predicate, for a single time
    /// not after `instant`, and for a cron schedule with no time within nine years.
    public func nextFire(after instant: Int64) -> Int64? {
        switch self {
        case .states: nil
        case .schedule(let schedule): schedule.nextFire(after: instant)
        case .scheduleOnce(let at): at > instant ? at : nil
        }
    }
}

/// When a `STATES` trigger fires, given the condition's value on the previous state and on the new one.
public enum TriggersWhen: String, Sendable, Hashable, CaseIterable {
    /// At every upload on which the condition is true.
    case conditionTrue = "CONDITION_TRUE"
    /// At an upload that makes the condition true after it was false (or before any state).
    case conditionFalseToTrue = "CONDITION_FALSE_TO_TRUE"
    /// At an upload that changes the condition's value, either way.
    case conditionChanged = "CONDITION_CHANGED"

    /// Whether an upload fires, the condition having been `was` and being `now`.
    public func fires(was: Bool, now: Bool) -> Bool {
        switch self {
        case .conditionTrue: now
        case .conditionFalseToTrue: now && !was
        case .conditionChanged: now != was
        }
    }
}
