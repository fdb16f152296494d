/// Tells an area that events of some kinds reached a subscriber's connection (written to it, live or
/// replayed): the things area learns that a thing received a command (SENDING becomes DELIVERED).
struct DeliveryReceipts: Sendable {
    /// The kinds to report.
    var kinds: Set<String>
    /// Whether a subscription's principal is one to report for (e.g. a thing).
    var appliesTo: @Sendable (_ principal: String) -> Bool
    /// Called with the principal and the reported events (kind and wire JSON), in order, once written.
    var delivered: @Sendable (_ principal: String, _ events: [(kind: String, json: [UInt8])]) -> Void
}
