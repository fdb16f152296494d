import NIOCore

extension TimeAmount {
    /// The amount as an operator reads it in an error or a log line: "10 s", or "250 ms" when it is not whole
    /// seconds (NIO's own description is "TimeAmount(10000000000 nanoseconds)").
    var inWords: String {
        self.nanoseconds % 1_000_000_000 == 0 ? "\(self.nanoseconds / 1_000_000_000) s" : "\(self.nanoseconds / 1_000_000) ms"
    }
}
