import NIOCore
import NIOEmbedded
import Synchronization
import Testing

@testable import GuildPostgres

/// The waits on a connection's answers: held while in progress, dropped when answered, all failed when the
/// connection closes; and a bounded wait that gives up at its deadline. No server needed: the connection's close
/// and its answers are promises on an embedded event loop.
struct ConnectionWaitsTests {
    struct Closed: Error, Equatable {}
    struct Frozen: Error, Equatable {}

    /// A value the callbacks of a test set and its body reads.
    final class Box<Value: Sendable>: Sendable {
        let value: Mutex<Value>
        init(_ value: Value) { self.value = Mutex(value) }
    }

    /// What `future` has come to, or nil while it is pending (an embedded loop runs callbacks at once).
    func outcome<T: Sendable>(_ future: EventLoopFuture<T>) -> Result<T, any Error>? {
        let box = Box<Result<T, any Error>?>(nil)
        future.whenComplete { result in box.value.withLock { $0 = result } }
        return box.value.withLock { $0 }
    }

    /// The value `future` came to (nil when it is pending or failed).
    func value<T: Sendable>(_ future: EventLoopFuture<T>) -> T? {
        guard case .success(let value) = self.outcome(future) else { return nil }
        return value
    }

    /// Whether `future` failed with an error of type `E`.
    func failed<T: Sendable, E: Error>(_ future: EventLoopFuture<T>, with _: E.Type) -> Bool {
        guard case .failure(let error) = self.outcome(future) else { return false }
        return error is E
    }

    /// A connection that lives for months answers millions of statements: the waits keep none of them.
    @Test func answeredWaitsAreDropped() throws {
        let loop = EmbeddedEventLoop()
        let closing = loop.makePromise(of: Void.self)
        let waits = ConnectionWaits(closeFuture: closing.futureResult, closedUnanswered: Closed())
        var answers: [EventLoopFuture<Int>] = []
        for index in 0..<1_000 {
            let statement = loop.makePromise(of: Int.self)
            answers.append(waits.untilClosed(statement.futureResult))
            #expect(waits.count == 1)
            statement.succeed(index)
            #expect(waits.count == 0)
        }
        #expect(answers.map { self.value($0) } == Array(0..<1_000))
        closing.succeed()
        try loop.syncShutdownGracefully()
    }

    /// A statement the server never answers fails when the connection closes, with the reason this side gave
    /// when it closed it; an answer that came first keeps its value; a wait begun after the close fails at once.
    @Test func closingFailsTheWaitsInProgressAndTheOnesToCome() throws {
        let loop = EmbeddedEventLoop()
        let closing = loop.makePromise(of: Void.self)
        let waits = ConnectionWaits(closeFuture: closing.futureResult, closedUnanswered: Closed())
        let unanswered = loop.makePromise(of: Int.self)
        let answered = loop.makePromise(of: Int.self)
        let waiting = waits.untilClosed(unanswered.futureResult)
        let done = waits.untilClosed(answered.futureResult)
        answered.succeed(7)
        #expect(waits.count == 1)
        #expect(waits.close(because: Frozen()))
        #expect(!waits.close(because: Closed()), "the first reason stands")
        closing.succeed()
        #expect(waits.count == 0)
        #expect(self.failed(waiting, with: Frozen.self))
        #expect(self.value(done) == 7)
        #expect(self.failed(waits.untilClosed(loop.makePromise(of: Int.self).futureResult), with: Frozen.self))
        #expect(waits.reason is Frozen)
        unanswered.succeed(1)  // too late: the wait has failed and nothing is held for it
        #expect(self.failed(waiting, with: Frozen.self))
        try loop.syncShutdownGracefully()
    }

    /// Without a reason, a closed connection's waits fail with the one it was made with.
    @Test func aConnectionThatClosesByItselfFailsWithClosedUnanswered() throws {
        let loop = EmbeddedEventLoop()
        let closing = loop.makePromise(of: Void.self)
        let waits = ConnectionWaits(closeFuture: closing.futureResult, closedUnanswered: Closed())
        let waiting = waits.untilClosed(loop.makePromise(of: Int.self).futureResult)
        closing.fail(Closed())
        #expect(self.failed(waiting, with: Closed.self))
        #expect(waits.reason == nil)
        try loop.syncShutdownGracefully()
    }

    /// A bounded wait answers with the value when it comes in time, with the failure at the deadline otherwise,
    /// and hands a value that comes too late to `late`.
    @Test func aBoundedWaitGivesUpAtItsDeadline() throws {
        let loop = EmbeddedEventLoop()
        let inTime = loop.makePromise(of: Int.self)
        let prompt = inTime.futureResult.within(.seconds(1), orFail: { Frozen() })
        loop.run()
        #expect(self.outcome(prompt) == nil)
        inTime.succeed(1)
        loop.advanceTime(by: .seconds(2))
        #expect(self.value(prompt) == 1)

        let lateValues = Box<[Int]>([])
        let slow = loop.makePromise(of: Int.self)
        let bounded = slow.futureResult.within(.seconds(1), orFail: { Frozen() }, late: { value in lateValues.value.withLock { $0.append(value) } })
        loop.run()
        loop.advanceTime(by: .milliseconds(999))
        #expect(self.outcome(bounded) == nil)
        loop.advanceTime(by: .milliseconds(1))
        #expect(self.failed(bounded, with: Frozen.self))
        slow.succeed(2)
        #expect(lateValues.value.withLock { $0 } == [2])
        try loop.syncShutdownGracefully()
    }

    /// Timeouts read as an operator writes them in errors and logs.
    @Test func timeoutsAreSaidInWords() {
        #expect(TimeAmount.seconds(10).inWords == "10 s")
        #expect(TimeAmount.milliseconds(250).inWords == "250 ms")
        #expect(TimeAmount.milliseconds(1500).inWords == "1500 ms")
    }
}
