/// Reads a fuzz input as a stream of choices, like libFuzzer's `FuzzedDataProvider`: when the bytes run out
/// every choice is 0, so any input is a valid program.
public struct FuzzBytes {
    private let bytes: [UInt8]
    private var at = 0

    /// Wraps an input.
    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Whether every byte has been read.
    public var isEmpty: Bool { self.at >= self.bytes.count }

    /// The next byte (0 once the input is used up).
    public mutating func byte() -> UInt8 {
        guard self.at < self.bytes.count else { return 0 }
        defer { self.at += 1 }
        return self.bytes[self.at]
    }

    /// A number in `0..<count` (0 when `count` is 0).
    public mutating func below(_ count: Int) -> Int {
        guard count > 1 else { return 0 }
        let value = count > 255 ? Int(self.byte()) << 8 | Int(self.byte()) : Int(self.byte())
        return value % count
    }

    /// A Boolean.
    public mutating func bool() -> Bool { self.byte() & 1 == 1 }

    /// The next `count` bytes (fewer at the end of the input).
    public mutating func take(_ count: Int) -> [UInt8] {
        let end = min(self.bytes.count, self.at + count)
        defer { self.at = end }
        return Array(self.bytes[min(self.at, end)..<end])
    }

    /// A length-prefixed run of bytes, at most `limit` long.
    public mutating func run(limit: Int) -> [UInt8] {
        self.take(self.below(limit + 1))
    }
}
