import GuildProtocol
import Testing

@Suite struct LineFramerTests {
    /// Feeds `reads` in order and returns the lines handed out, as text, and the last outcome.
    private func lines(
        _ reads: [String],
        limit: Int = 100,
        holdFrom: Int = .max
    ) -> (lines: [String], outcome: LineFramer.Outcome, framer: LineFramer) {
        var framer = LineFramer(maximumLineBytes: limit)
        var lines: [String] = []
        var outcome = LineFramer.Outcome.needMore
        var offered = 0
        for read in reads {
            outcome = Array(read.utf8).withUnsafeBytes { bytes in
                framer.feed(bytes) { line in
                    offered += 1
                    if offered >= holdFrom { return .hold }
                    lines.append(String(decoding: line, as: UTF8.self))
                    return .proceed
                }
            }
            if outcome == .tooLarge { break }
        }
        return (lines, outcome, framer)
    }

    @Test func linesArriveWholeOrInPiecesAlike() {
        let stream = "{\"a\":1}\n\r\n{\"b\":2}\r\nplain\n"
        let whole = self.lines([stream])
        #expect(whole.lines == ["{\"a\":1}", "", "{\"b\":2}", "plain"])
        #expect(whole.outcome == .needMore)
        #expect(!whole.framer.hasPendingBytes)
        // Every way of cutting it into two reads, and byte by byte, gives the same lines.
        for cut in 1..<stream.utf8.count {
            let bytes = Array(stream.utf8)
            let reads = [String(decoding: bytes[..<cut], as: UTF8.self), String(decoding: bytes[cut...], as: UTF8.self)]
            #expect(self.lines(reads).lines == whole.lines, "cut at \(cut)")
        }
        #expect(self.lines(stream.utf8.map { String(decoding: [$0], as: UTF8.self) }).lines == whole.lines)
    }

    @Test func anIncompleteLineIsKeptUntilItsNewline() {
        var (lines, outcome, framer) = self.lines(["first\nsec", "ond"])
        #expect(lines == ["first"])
        #expect(outcome == .needMore)
        #expect(framer.hasPendingBytes)
        var finished: [String] = []
        #expect(framer.finish { finished.append(String(decoding: $0, as: UTF8.self)) })
        #expect(finished == ["second"])
        #expect(!framer.hasPendingBytes)
        #expect(!framer.finish { _ in Issue.record("nothing is left") })
    }

    @Test func aHeldLineAndEverythingAfterItComeBackInOrder() {
        var (lines, outcome, framer) = self.lines(["one\ntwo\nthree\nfo", "ur\nfive\n"], holdFrom: 2)
        #expect(lines == ["one"])
        #expect(outcome == .held)
        // A read that arrives while held joins the held bytes.
        var resumed: [String] = []
        var holdNext = true
        outcome = framer.resume { line in
            if holdNext {
                holdNext = false
                return .hold
            }
            resumed.append(String(decoding: line, as: UTF8.self))
            return .proceed
        }
        #expect(outcome == .held)
        #expect(resumed.isEmpty)
        outcome = framer.resume { line in
            resumed.append(String(decoding: line, as: UTF8.self))
            return .proceed
        }
        #expect(resumed == ["two", "three", "four", "five"])
        #expect(outcome == .needMore)
        #expect(!framer.hasPendingBytes)
    }

    @Test func aReadDuringAHoldIsQueuedBehindTheHeldLines() {
        var framer = LineFramer(maximumLineBytes: 100)
        var seen: [String] = []
        var ready = false
        let take: (UnsafeRawBufferPointer) -> LineFramer.Next = { line in
            guard ready else { return .hold }
            seen.append(String(decoding: line, as: UTF8.self))
            return .proceed
        }
        #expect(Array("a\nb\n".utf8).withUnsafeBytes { framer.feed($0, take) } == .held)
        #expect(Array("c\nd".utf8).withUnsafeBytes { framer.feed($0, take) } == .held)
        ready = true
        #expect(framer.resume(take) == .needMore)
        #expect(seen == ["a", "b", "c"])
        #expect(Array("\n".utf8).withUnsafeBytes { framer.feed($0, take) } == .needMore)
        #expect(seen == ["a", "b", "c", "d"])
    }

    @Test func aLineCompletedByALaterReadIsFollowedByTheReadsOtherLinesInOrder() {
        // The kept start of a line ends inside a read that carries more lines, some held back.
        var (lines, outcome, framer) = self.lines(["ab", "c\nd\ne\nf"], holdFrom: 3)
        #expect(lines == ["abc", "d"])
        #expect(outcome == .held)
        // Held lines are not a last line: finishing now hands out nothing.
        #expect(!framer.finish { _ in Issue.record("a held line was handed out as the last line") })
        var rest: [String] = []
        outcome = framer.resume {
            rest.append(String(decoding: $0, as: UTF8.self))
            return .proceed
        }
        #expect(outcome == .needMore)
        #expect(rest == ["e"])
        #expect(framer.finish { rest.append(String(decoding: $0, as: UTF8.self)) })
        #expect(rest == ["e", "f"])
    }

    @Test func theLargestLimitDoesNotOverflow() {
        let result = self.lines(["one\ntw", "o\nthr"], limit: .max)
        #expect(result.lines == ["one", "two"])
        #expect(result.outcome == .needMore)
    }

    @Test func linesOverTheLimitEndTheStream() {
        // A whole line at the limit passes; one byte more does not, in one read or in pieces.
        #expect(self.lines([String(repeating: "x", count: 10) + "\n"], limit: 10).lines.count == 1)
        #expect(self.lines([String(repeating: "x", count: 10) + "\r\n"], limit: 10).lines.count == 1)
        let over = self.lines(["ok\n" + String(repeating: "x", count: 11) + "\nnext\n"], limit: 10)
        #expect(over.lines == ["ok"])
        #expect(over.outcome == .tooLarge)
        // An incomplete line is refused as soon as it is longer than the limit can hold.
        #expect(self.lines([String(repeating: "x", count: 10)], limit: 10).outcome == .needMore)
        #expect(self.lines([String(repeating: "x", count: 10) + "\r"], limit: 10).outcome == .needMore)
        #expect(self.lines([String(repeating: "x", count: 11)], limit: 10).outcome == .tooLarge)
        #expect(self.lines([String(repeating: "x", count: 12)], limit: 10).outcome == .tooLarge)
        #expect(self.lines(["xxxxxx", "xxxxxx"], limit: 10).outcome == .tooLarge)
        #expect(self.lines([String(repeating: "x", count: 11), "\n"], limit: 10).outcome == .tooLarge)
        #expect(self.lines([String(repeating: "x", count: 10) + "\r", "\n"], limit: 10).lines.count == 1)
    }
}
