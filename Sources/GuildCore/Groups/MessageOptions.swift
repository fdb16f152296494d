/// The daemon's settings for group messages (guildd's options).
public struct MessageOptions: Sendable, Hashable {
    /// How long messages are kept, in ms (default 7 days); older ones are deleted.
    public var retentionMilliseconds: Int64
    /// `group.sendMessage` calls one user may make per second (over it: 10023).
    public var messagesPerUserPerSecond: Int
    /// Messages an AVChatRoom delivers per second (Tencent: 40).
    public var liveRoomMessagesPerSecond: Int
    /// How long an AVChatRoom gathers messages before choosing which to deliver, in ms.
    public var liveRoomWindowMilliseconds: Int64
    /// How long a sender may recall their message, in ms (Tencent: 2 minutes).
    public var recallWindowMilliseconds: Int64

    /// The defaults, or the given settings.
    public init(
        retentionMilliseconds: Int64 = 7 * 86_400_000,
        messagesPerUserPerSecond: Int = 50,
        liveRoomMessagesPerSecond: Int = 40,
        liveRoomWindowMilliseconds: Int64 = 1000,
        recallWindowMilliseconds: Int64 = 120_000
    ) {
        self.retentionMilliseconds = retentionMilliseconds
        self.messagesPerUserPerSecond = messagesPerUserPerSecond
        self.liveRoomMessagesPerSecond = liveRoomMessagesPerSecond
        self.liveRoomWindowMilliseconds = liveRoomWindowMilliseconds
        self.recallWindowMilliseconds = recallWindowMilliseconds
    }
}
