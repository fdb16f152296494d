import GuildJSON

/// The example methods of the JSON-RPC 2.0 specification (`subtract`, `sum`, `get_data`, `update`,
/// `notify_hello`, `notify_sum`), served so the specification's own examples run verbatim against guildd.
/// They touch no state.
public enum ConformanceMethods: Sendable {
    /// `subtract`: `minuend - subtrahend`, by position (`[42, 23]`) or by name.
    public enum Subtract: RPCMethod {
        public struct Params: Codable, Hashable, Sendable {
            public var minuend: Double
            public var subtrahend: Double
            public init(minuend: Double, subtrahend: Double) {
                self.minuend = minuend
                self.subtrahend = subtrahend
            }
        }
        public typealias Result = JSONValue
        public static let name = "subtract"
        public static let positionalParameters = ["minuend", "subtrahend"]
    }

    /// `sum`: the sum of the numbers given by position.
    public enum Sum: RPCMethod {
        public typealias Params = [Double]
        public typealias Result = JSONValue
        public static let name = "sum"
    }

    /// `get_data`: returns `["hello", 5]`.
    public enum GetData: RPCMethod {
        public typealias Params = NoParams
        public typealias Result = JSONValue
        public static let name = "get_data"
    }

    /// `update`, `notify_hello`, `notify_sum`: accept anything and return `null` (the specification sends them
    /// as notifications).
    public enum Update: RPCMethod {
        public typealias Params = JSONValue
        public typealias Result = JSONValue
        public static let name = "update"
    }

    /// `notify_hello`: see ``Update``.
    public enum NotifyHello: RPCMethod {
        public typealias Params = JSONValue
        public typealias Result = JSONValue
        public static let name = "notify_hello"
    }

    /// `notify_sum`: see ``Update``.
    public enum NotifySum: RPCMethod {
        public typealias Params = JSONValue
        public typealias Result = JSONValue
        public static let name = "notify_sum"
    }
}
