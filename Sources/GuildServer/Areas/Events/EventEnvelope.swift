import GuildCore
import GuildJSON
import GuildProtocol

/// An event wrapped for the wire: the `events.event` notification bytes, built once per event (when the hub
/// receives a commit, or when a page is replayed) and shared by every subscriber, which writes only its own
/// head before them. The one place the `events.event` envelope is made.
final class EventEnvelope: Sendable {
    /// The committed event.
    let event: CommittedEvent
    /// `,"seq":N,"event":<json>}}` and the newline: what follows the subscription id.
    let tail: [UInt8]

    /// Wraps a committed event.
    init(_ event: CommittedEvent) {
        self.event = event
        self.tail = Self.tail(seq: event.seq, json: event.json)
    }

    /// `{"jsonrpc":"2.0","method":"events.event","params":{"subscription":"<id>"`: what precedes each event's
    /// tail on one subscription.
    static func head(subscription id: String) -> [UInt8] {
        var head = Array(#"{"jsonrpc":"2.0","method":"\#(EventNotification.method)","params":{"subscription":"#.utf8)
        JSONText.appendString(id, to: &head)
        return head
    }

    /// What follows the subscription id in an `events.event` notification: `,"seq":N,"event":<json>}}` and the
    /// newline.
    static func tail(seq: Int64, json: [UInt8]) -> [UInt8] {
        var bytes = Array(#","seq":\#(seq),"event":"#.utf8)
        bytes.reserveCapacity(bytes.count + json.count + 3)
        bytes.append(contentsOf: json)
        bytes.append(contentsOf: [UInt8(ascii: "}"), UInt8(ascii: "}"), UInt8(ascii: "\n")])
        return bytes
    }
}
