import GuildCore
import GuildProtocol

extension MethodRegistry {
    /// `events.subscribe` and `events.unsubscribe`.
    mutating func registerEventMethods(_ hub: EventHub) {
        self.register(EventMethods.Subscribe.self) { params, context in
            var kinds: Set<GroupEvent.Kind>?
            if let names = params.kinds {
                kinds = []
                for name in names {
                    guard let kind = GroupEvent.Kind(rawValue: name) else {
                        throw GuildError.invalidInput(
                            "unknown event kind \(name); kinds are \(GroupEvent.Kind.allCases.map(\.rawValue).joined(separator: ", "))",
                            field: "kinds"
                        )
                    }
                    kinds?.insert(kind)
                }
            }
            let userID: String?
            if params.all == true {
                guard context.caller.isAdmin else {
                    throw GuildError(.permissionDenied, "only an admin may watch every group (all: true)", field: "all")
                }
                userID = nil
            } else {
                userID = try context.caller.requireUserID()
            }
            let subscription = try await hub.subscribe(
                connection: context.connection,
                userID: userID,
                filter: .init(groupIDs: params.groupIDs.map(Set.init), kinds: kinds),
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

    /// `system.check`: integrity and group invariants (admins).
    mutating func registerCheckMethod(groups: any GroupRepository, integrity: @escaping @Sendable () async throws -> [String]) {
        self.register(SystemMethods.Check.self) { _, _ in
            let integrity = try await integrity()
            let violations = try await groups.checkInvariants()
            return .init(ok: integrity == ["ok"] && violations.isEmpty, integrity: integrity, violations: violations)
        }
    }
}
