import GuildCore
import GuildJSON
import Synchronization

/// Records that things received their commands: each `commandReceived` written to a thing's connection
/// moves its command from SENDING to DELIVERED. Deliveries are gathered and written in batches, one write
/// at a time, so a burst of commands costs a few writes.
final class CommandDeliveries: Sendable {
    private struct Pending {
        var deliveries: [(thingID: String, commandID: String)] = []
        var flushing = false
    }

    private let pending = Mutex(Pending())
    private let things: ThingService

    init(things: ThingService) {
        self.things = things
    }

    /// The receipts the event hub reports to.
    var receipts: DeliveryReceipts {
        DeliveryReceipts(
            kinds: [ThingEvent.Kind.commandReceived.rawValue],
            appliesTo: { $0.hasPrefix("th.") },
            delivered: { [self] thingID, events in self.delivered(thingID: thingID, events) }
        )
    }

    private func delivered(thingID: String, _ events: [(kind: String, json: [UInt8])]) {
        let commandIDs = events.compactMap { event in
            (try? event.json.withUnsafeBytes { try JSONValue(parsing: $0) })?.objectValue?["commandID"]?.stringValue
        }
        guard !commandIDs.isEmpty else { return }
        let start = self.pending.withLock { pending in
            pending.deliveries += commandIDs.map { (thingID, $0) }
            guard !pending.flushing else { return false }
            pending.flushing = true
            return true
        }
        if start { Task { await self.flush() } }
    }

    private func flush() async {
        while true {
            let batch: [(thingID: String, commandID: String)]? = self.pending.withLock { pending in
                guard !pending.deliveries.isEmpty else {
                    pending.flushing = false
                    return nil
                }
                defer { pending.deliveries = [] }
                return pending.deliveries
            }
            guard let batch else { return }
            try? await self.things.markDelivered(batch)
        }
    }
}
