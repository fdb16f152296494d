import GuildCore
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
        let commandIDs = events.compactMap { Self.commandID(in: $0.json) }
        guard !commandIDs.isEmpty else { return }
        let start = self.pending.withLock { pending in
            pending.deliveries += commandIDs.map { (thingID, $0) }
            guard !pending.flushing else { return false }
            pending.flushing = true
            return true
        }
        if start { Task { await self.flush() } }
    }

    /// The `commandID` member of a `commandReceived` event's JSON (written by ThingEvent: a key that occurs once,
    /// its value an id without escapes), found without parsing the event.
    static func commandID(in json: [UInt8]) -> String? {
        let key = Array(#""commandID":""#.utf8)
        guard json.count > key.count else { return nil }
        var index = 0
        while index + key.count <= json.count {
            if json[index] == key[0], json[index..<(index + key.count)].elementsEqual(key) {
                let start = index + key.count
                guard let end = json[start...].firstIndex(of: UInt8(ascii: "\"")) else { return nil }
                return String(decoding: json[start..<end], as: UTF8.self)
            }
            index += 1
        }
        return nil
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
