import Foundation
import GuildCore

/// An event's ``EventRouting`` as the PostgreSQL log keeps it (the `routing` column, JSON), so that every host
/// rebuilds who receives an event written through another: the fan-out reads nothing else of the area's value.
struct StoredRouting: Codable {
    var addressees: [String]?
    var joining: [String]?
    var leaving: [String]?
    var followersSee: Bool?
    var excluded: [String]?
    var followersOf: [String]?
    var everyone: Bool?
    var installations: [String]?

    init(_ routing: EventRouting) {
        func nonEmpty(_ values: [String]) -> [String]? { values.isEmpty ? nil : values }
        self.addressees = nonEmpty(routing.addressees)
        self.joining = nonEmpty(routing.joining)
        self.leaving = nonEmpty(routing.leaving)
        self.followersSee = routing.followersSee ? true : nil
        self.excluded = nonEmpty(routing.excluded)
        self.followersOf = nonEmpty(routing.followersOf.map(\.rawValue))
        self.everyone = routing.everyone ? true : nil
        self.installations = nonEmpty(routing.installations)
    }

    var routing: EventRouting {
        var routing = EventRouting(
            addressees: self.addressees ?? [],
            joining: self.joining ?? [],
            leaving: self.leaving ?? [],
            followersSee: self.followersSee ?? false,
            excluded: self.excluded ?? [],
            followersOf: (self.followersOf ?? []).compactMap(EventTopic.init),
            everyone: self.everyone ?? false
        )
        routing.installations = self.installations ?? []
        return routing
    }

    static func encode(_ routing: EventRouting) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(StoredRouting(routing)), as: UTF8.self)
    }

    static func decode(_ text: String) throws -> EventRouting {
        try JSONDecoder().decode(StoredRouting.self, from: Data(text.utf8)).routing
    }
}
