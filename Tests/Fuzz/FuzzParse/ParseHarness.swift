import FuzzSupport
import GuildJSON
import GuildProtocol

/// One input of the parsing fuzz target.
///
/// The first byte picks the limits (nesting depth, batch size, frame size) and how the rest is cut into reads;
/// the rest is the byte stream a peer sends. The stream goes through the server's framing (`LineFramer`, as
/// `ConnectionHandler` drives it), and every frame through `RequestParser`. Checked:
/// - framing: the frames are exactly the stream's lines (a trailing `\r` dropped), in order, whatever the
///   reads and holds, and none is longer than the frame limit; a partial line over the limit is refused;
/// - scanning: `JSONScanner` accepts exactly what `ReferenceJSON` accepts within the depth limit, reports the
///   same kind of failure, and its members, elements, strings and ranges agree with the reference tree; a valid
///   text written back out (plain, and with every non-ASCII character escaped) scans to the same tree;
/// - parsing: every frame gives a result or an error with the JSON-RPC code the specification prescribes
///   (-32700 for bad JSON or too deep, -32600 for an invalid request, empty or too large batch), entries match
///   the reference reading of the envelope, and every reply written for them is valid JSON-RPC.
enum ParseHarness {
    struct Limits {
        var depth: Int
        var batch: Int
        var frame: Int
        var chunk: Int

        init(_ byte: UInt8) {
            self.depth = [128, 1, 3, 16][Int(byte & 3)]
            self.batch = [1000, 1, 4, 2][Int(byte >> 2 & 3)]
            self.frame = [16, 64, 1 << 20, 300][Int(byte >> 4 & 3)]
            self.chunk = [Int.max, 1, 5, 64][Int(byte >> 6 & 3)]
        }
    }

    static func run(_ input: [UInt8]) {
        guard let first = input.first else { return }
        let limits = Limits(first)
        let stream = Array(input.dropFirst())
        ScannerCheck.check(stream, maximumDepth: limits.depth)
        for frame in Self.frames(of: stream, limits: limits) {
            ScannerCheck.check(frame, maximumDepth: limits.depth)
            RequestCheck.check(frame, limits: limits)
        }
    }

    /// Runs the stream through the server's framing (`LineFramer`, cut into reads as `limits.chunk` says,
    /// holding back every third line once, as the daemon does while a connection is not writable, and taking it
    /// on the next resume or with the next read) and checks it against the model; returns the frames.
    static func frames(of stream: [UInt8], limits: Limits) -> [[UInt8]] {
        var framer = LineFramer(maximumLineBytes: limits.frame)
        var frames: [[UInt8]] = []
        var offered = 0
        var tooLarge = false
        let take: (UnsafeRawBufferPointer) -> LineFramer.Next = { line in
            offered += 1
            if offered % 3 == 0 { return .hold }
            frames.append(Array(line))
            return .proceed
        }
        var offset = 0
        var chunks: [Range<Int>] = []
        reading: while offset < stream.count {
            let end = offset + min(limits.chunk, stream.count - offset)
            chunks.append(offset..<end)
            var outcome = stream[offset..<end].withUnsafeBytes { framer.feed($0, take) }
            // Every other read, held lines are taken before the next read; otherwise the next read arrives
            // while they are held (as reads the daemon already had under way do).
            if chunks.count % 2 == 0 {
                while outcome == .held { outcome = framer.resume(take) }
            }
            offset = end
            if outcome == .tooLarge {
                tooLarge = true
                break reading
            }
        }
        if !tooLarge {
            var outcome = framer.resume(take)
            while outcome == .held { outcome = framer.resume(take) }
            if outcome == .tooLarge {
                tooLarge = true
            } else {
                _ = framer.finish { frames.append(Array($0)) }
            }
        }

        let model = Self.model(stream, chunks: chunks, limit: limits.frame)
        Invariant.check(
            frames == model.frames,
            "framing delivered \(frames.count) frames, the model \(model.frames.count)",
            bytes: stream
        )
        Invariant.check(tooLarge == model.tooLarge, "framing refused: \(tooLarge), model: \(model.tooLarge)")
        for frame in frames {
            Invariant.check(
                frame.count <= limits.frame,
                "a \(frame.count)-byte frame was accepted with a \(limits.frame)-byte frame limit",
                bytes: frame
            )
        }
        return frames
    }

    /// What the framing should do: split at `\n`, drop one `\r` before it, refuse a line over the limit, and
    /// after each read refuse when the unterminated rest exceeds the limit (by more than a `\r` that may
    /// still precede its `\n`); at the end, an unterminated last line is a frame.
    static func model(_ stream: [UInt8], chunks: [Range<Int>], limit: Int) -> (frames: [[UInt8]], tooLarge: Bool) {
        var pending: [UInt8] = []
        var frames: [[UInt8]] = []
        for chunk in chunks {
            pending += stream[chunk]
            while let newline = pending.firstIndex(of: 0x0A) {
                var line = Array(pending[..<newline])
                if line.last == 0x0D { line.removeLast() }
                if line.count > limit { return (frames, true) }
                frames.append(line)
                pending.removeFirst(newline + 1)
            }
            if pending.count > limit + 1 || (pending.count == limit + 1 && pending.last != 0x0D) {
                return (frames, true)
            }
        }
        if !pending.isEmpty {
            if pending.last == 0x0D { pending.removeLast() }
            frames.append(pending)
        }
        return (frames, false)
    }
}
