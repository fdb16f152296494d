/// A group message's priority (Tencent's `MsgPriority`). In an AVChatRoom over its per-second rate, lower
/// priorities are discarded first.
public enum MessagePriority: String, Sendable, Hashable, CaseIterable, Codable {
    case high = "High"
    case normal = "Normal"
    case low = "Low"
    case lowest = "Lowest"

    /// 0 for High up to 3 for Lowest: the order in which an AVChatRoom over its rate keeps messages.
    public var rank: Int {
        switch self {
        case .high: 0
        case .normal: 1
        case .low: 2
        case .lowest: 3
        }
    }
}
