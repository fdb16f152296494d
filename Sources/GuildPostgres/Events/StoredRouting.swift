import GuildCore
import GuildJSON

/// An event's ``EventRouting`` as the PostgreSQL log keeps it (the `routing` column, JSON written and read with
/// GuildJSON), so that every host rebuilds who receives an event written through another: the fan-out reads
/// nothing else of the area's value. Empty lists and false flags are left out.
enum StoredRouting {
    static func encode(_ routing: EventRouting) -> String {
        var members: [String: JSONValue] = [:]
        func list(_ key: String, _ values: [String]) {
            if !values.isEmpty { members[key] = .array(values.map(JSONValue.string)) }
        }
        list("addressees", routing.addressees)
        list("joining", routing.joining)
        list("leaving", routing.leaving)
        list("excluded", routing.excluded)
        list("followersOf", routing.followersOf.map(\.rawValue))
        list("installations", routing.installations)
        if routing.followersSee { members["followersSee"] = true }
        if routing.everyone { members["everyone"] = true }
        return JSONValue.object(members).jsonText
    }

    static func decode(_ text: String) throws -> EventRouting {
        guard let members = try JSONValue(parsing: text).objectValue else {
            throw PostgresStoreError.unexpectedReply("an event's stored routing is not a JSON object")
        }
        func list(_ key: String) -> [String] {
            guard case .array(let values)? = members[key] else { return [] }
            return values.compactMap(\.stringValue)
        }
        var routing = EventRouting(
            addressees: list("addressees"),
            joining: list("joining"),
            leaving: list("leaving"),
            followersSee: members["followersSee"] == true,
            excluded: list("excluded"),
            followersOf: list("followersOf").compactMap(EventTopic.init),
            everyone: members["everyone"] == true
        )
        routing.installations = list("installations")
        return routing
    }
}
