import Testing

/// A named byte string, for parameterized tests of malformed input (names show in test output).
public struct ByteCase: Sendable, CustomTestStringConvertible {
    public var name: String
    public var bytes: [UInt8]

    public init(_ name: String, _ bytes: [UInt8]) {
        self.name = name
        self.bytes = bytes
    }

    public init(_ text: String) {
        self.name = text
        self.bytes = Array(text.utf8)
    }

    public var testDescription: String { self.name }
}
