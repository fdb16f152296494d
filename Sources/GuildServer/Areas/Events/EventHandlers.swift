import GuildCore
import GuildProtocol

extension MethodRegistry {
    /// `events.subscribe` and `events.unsubscribe`.
    mutating func registerEventMethods(_ hub: EventHub) {
        self.register(EventMethods.Subscribe.self) { params, context in
            let kinds = try Self.eventKinds(params.kinds)
            let topics = try Self.eventTopics(
                groupIDs: params.groupIDs,
                topics: params.topics,
                buckets: params.buckets,
                thingIDs: params.thingIDs
            )
            let userID: String?
            if params.all == true {
                guard context.caller.isAdmin else {
                    throw GuildError(.permissionDenied, "only an admin may watch every group (all: true)", field: "all")
                }
                userID = nil
            } else {
                guard let principal = context.caller.principalID else {
                    throw GuildError(.unauthorized, "events.subscribe needs a session (or all: true as an admin)")
                }
                userID = principal
            }
            let subscription = try await hub.subscribe(
                connection: context.connection,
                userID: userID,
                filter: .init(topics: topics, kinds: kinds),
                since: params.since
            )
            context.afterReply.schedule { await hub.activate(subscription) }
            return .init(subscription: subscription.id, seq: subscription.head)
        }
        self.register(EventMethods.Unsubscribe.self) { params, context in
            guard hub.unsubscribe(params.subscription, connection: context.connection) else {
                throw GuildError(.subscriptionNotFound, "no subscription \(params.subscription) on this connection", field: "subscription")
            }
            return true
        }
    }

    /// The kinds asked for, each one of a registered area's kinds; nil for any.
    private static func eventKinds(_ names: [String]?) throws -> Set<String>? {
        guard let names else { return nil }
        let known = EventAreas.kinds
        for name in names where !known.contains(name) {
            throw GuildError.invalidInput("unknown event kind \(name); kinds are \(known.joined(separator: ", "))", field: "kinds")
        }
        return Set(names)
    }

    /// The topics asked for: `groupIDs` name `group:<id>` topics, `buckets` `bucket:<scope>/<bucket>` topics,
    /// `topics` any registered area's; nil for any.
    private static func eventTopics(
        groupIDs: [String]?,
        topics names: [String]?,
        buckets: [EventMethods.BucketRef]?,
        thingIDs: [String]?
    ) throws -> Set<EventTopic>? {
        guard groupIDs != nil || names != nil || buckets != nil || thingIDs != nil else { return nil }
        var topics = Set((groupIDs ?? []).map(EventTopic.group))
        topics.formUnion((thingIDs ?? []).map(EventTopic.thing))
        for bucket in buckets ?? [] {
            let scope = try ObjectScope(bucket.scope, field: "buckets")
            do { try ObjectService.checkBucketName(bucket.bucket) } catch { throw GuildError.invalidInput(error.message, field: "buckets") }
            topics.insert(.bucket(scope: scope, name: bucket.bucket))
        }
        for name in names ?? [] {
            guard let topic = EventTopic(name), EventAreas.audience(for: topic.area) != nil else {
                throw GuildError.invalidInput(
                    "unknown topic \(name); a topic is area:id, with area one of \(EventAreas.areas.joined(separator: ", "))",
                    field: "topics"
                )
            }
            topics.insert(topic)
        }
        return topics
    }
}
