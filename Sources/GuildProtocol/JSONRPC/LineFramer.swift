#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Cuts a byte stream into lines, the wire's frames: each ends at `\n`, and a `\r` right before it is
/// dropped.
///
/// Lines that arrive whole in one read are handed out in place, straight from the read's bytes; only the
/// start of an incomplete line (and lines the receiver held back) is copied and kept. Newlines are found with
/// `memchr`. A line longer than ``maximumLineBytes``, complete or not, ends the stream with
/// ``Outcome/tooLarge``.
///
/// ```swift
/// var framer = LineFramer(maximumLineBytes: 1 << 24)
/// let outcome = framer.feed(bytes) { line in
///     guard ready else { return .hold }  // not taken: `resume` hands it out again later
///     handle(line)
///     return .proceed
/// }
/// ```
public struct LineFramer: Sendable {
    /// What the receiver of a line wants next.
    public enum Next: Sendable {
        /// Hand out the next line.
        case proceed
        /// The line was not taken: it and the bytes after it are kept, in order, for ``LineFramer/resume(_:)``.
        case hold
    }

    /// Where a ``LineFramer/feed(_:_:)`` or ``LineFramer/resume(_:)`` stopped.
    public enum Outcome: Sendable, Equatable {
        /// Every complete line was handed out; what is kept is at most the start of the next line.
        case needMore
        /// The receiver held the stream back: complete lines may be waiting.
        case held
        /// A line is longer than the limit. Nothing more should be read from this stream.
        case tooLarge
    }

    /// The longest line accepted, not counting its `\n` (nor a `\r` before it).
    public let maximumLineBytes: Int
    /// Bytes received and not handed out; those before `pendingStart` were handed out already.
    private var pending: [UInt8] = []
    private var pendingStart = 0
    /// Whether `pending` holds lines the receiver held back (not only the start of an incomplete line).
    private var holding = false

    /// Creates a framer for lines of at most `maximumLineBytes` bytes.
    public init(maximumLineBytes: Int) {
        self.maximumLineBytes = maximumLineBytes
    }

    /// Whether bytes are kept: held-back lines, or the start of an incomplete line.
    public var hasPendingBytes: Bool { self.pendingStart < self.pending.count }

    /// Whether the receiver held lines back that ``resume(_:)`` has not handed out yet.
    public var isHolding: Bool { self.holding }

    /// Adds one read's bytes and hands out every complete line, in order, until `line` holds.
    public mutating func feed(
        _ bytes: UnsafeRawBufferPointer,
        _ line: (UnsafeRawBufferPointer) -> Next
    ) -> Outcome {
        guard self.hasPendingBytes else {
            // The usual case: nothing kept, so lines are handed out straight from the read.
            return self.splitInPlace(bytes, line)
        }
        guard !self.holding, let base = bytes.baseAddress,
            let found = memchr(base, Int32(UInt8(ascii: "\n")), bytes.count)
        else {
            // Held lines wait in front of these bytes, or the kept line is still incomplete.
            self.pending.append(contentsOf: bytes)
            return self.resume(line)
        }
        // The kept start of a line ends in this read: finish that one line from the kept bytes, then go on in
        // place with the rest of the read.
        let end = base.distance(to: UnsafeRawPointer(found))
        self.pending.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[...end]))
        let outcome = self.resume(line)
        guard outcome == .needMore else {
            self.pending.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[(end + 1)...]))
            return outcome
        }
        return self.splitInPlace(UnsafeRawBufferPointer(rebasing: bytes[(end + 1)...]), line)
    }

    /// Hands out the lines of a read with nothing kept before it, and keeps what is left.
    private mutating func splitInPlace(
        _ bytes: UnsafeRawBufferPointer,
        _ line: (UnsafeRawBufferPointer) -> Next
    ) -> Outcome {
        let (consumed, outcome) = self.split(bytes, line)
        if outcome != .tooLarge, consumed < bytes.count {
            self.pending.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[consumed...]))
        }
        self.holding = outcome == .held
        return outcome
    }

    /// Hands out the lines kept after a hold, until `line` holds again.
    public mutating func resume(_ line: (UnsafeRawBufferPointer) -> Next) -> Outcome {
        guard self.hasPendingBytes else { return .needMore }
        let start = self.pendingStart
        let (consumed, outcome) = self.pending.withUnsafeBytes { all in
            self.split(UnsafeRawBufferPointer(rebasing: all[start...]), line)
        }
        self.pendingStart += consumed
        self.holding = outcome == .held
        if self.pendingStart == self.pending.count {
            self.pending.removeAll(keepingCapacity: self.pending.capacity <= 64 * 1024)
            self.pendingStart = 0
        } else if outcome == .needMore || self.pendingStart >= 64 * 1024 {
            // Keep only what is left; the handed-out prefix goes.
            self.pending.removeSubrange(0..<self.pendingStart)
            self.pendingStart = 0
        }
        return outcome
    }

    /// The stream ended: hands out an incomplete last line, if any, as a line. Held lines must be handed out
    /// with ``resume(_:)`` first: while any are held this does nothing and returns false. Returns whether a
    /// last line was handed out.
    public mutating func finish(_ line: (UnsafeRawBufferPointer) -> Void) -> Bool {
        guard self.hasPendingBytes, !self.holding else { return false }
        self.pending.withUnsafeBytes { all in
            line(Self.trimmingReturn(UnsafeRawBufferPointer(rebasing: all[self.pendingStart...])))
        }
        self.pending = []
        self.pendingStart = 0
        return true
    }

    /// Hands out the complete lines of `bytes` from its start; returns how many bytes were handed out.
    private func split(
        _ bytes: UnsafeRawBufferPointer,
        _ line: (UnsafeRawBufferPointer) -> Next
    ) -> (consumed: Int, outcome: Outcome) {
        guard let base = bytes.baseAddress else { return (0, .needMore) }
        var start = 0
        while start < bytes.count,
            let found = memchr(base + start, Int32(UInt8(ascii: "\n")), bytes.count - start)
        {
            let end = base.distance(to: UnsafeRawPointer(found))
            let text = Self.trimmingReturn(UnsafeRawBufferPointer(rebasing: bytes[start..<end]))
            guard text.count <= self.maximumLineBytes else { return (start, .tooLarge) }
            if case .hold = line(text) { return (start, .held) }
            start = end + 1
        }
        // What is left is the start of a line; one `\r` past the limit may still be the `\r` of its `\r\n`.
        let rest = bytes.count - start
        if rest > self.maximumLineBytes, !(rest - 1 == self.maximumLineBytes && bytes[bytes.count - 1] == 0x0D) {
            return (start, .tooLarge)
        }
        return (start, .needMore)
    }

    private static func trimmingReturn(_ line: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        guard let last = line.last, last == 0x0D else { return line }
        return UnsafeRawBufferPointer(rebasing: line[..<(line.count - 1)])
    }
}
