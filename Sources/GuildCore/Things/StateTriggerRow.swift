/// What evaluating an upload needs of a trigger that may watch the thing's states: its id, its predicate as
/// stored (the JSON text compiled conditions are cached by, ``TriggerConditions``) and whether it is enabled.
/// The action is read only when the trigger fires.
public struct StateTriggerRow: Sendable, Hashable {
    public var triggerID: String
    /// The predicate's stored JSON text.
    public var predicate: [UInt8]
    public var enabled: Bool

    public init(triggerID: String, predicate: [UInt8], enabled: Bool) {
        self.triggerID = triggerID
        self.predicate = predicate
        self.enabled = enabled
    }
}
