import NIOCore

extension EventLoopFuture where Value: Sendable {
    /// This future's result, or `failure` once `timeout` has passed without it. The timer is cancelled when the
    /// result comes, so a bounded wait holds nothing after it ends; `late` gets a value that comes after the
    /// deadline (to close it).
    func within(
        _ timeout: TimeAmount,
        orFail failure: @escaping @Sendable () -> any Error,
        late: @escaping @Sendable (Value) -> Void = { _ in }
    ) -> EventLoopFuture<Value> {
        let eventLoop = self.eventLoop
        let outcome = eventLoop.makePromise(of: Value.self)
        eventLoop.execute {
            // Everything below runs on the future's event loop, so the flag needs no lock.
            let settled = NIOLoopBoundBox(false, eventLoop: eventLoop)
            let timer = eventLoop.scheduleTask(in: timeout) {
                guard !settled.value else { return }
                settled.value = true
                outcome.fail(failure())
            }
            self.whenComplete { result in
                timer.cancel()
                guard !settled.value else {
                    if case .success(let value) = result { late(value) }
                    return
                }
                settled.value = true
                outcome.completeWith(result)
            }
        }
        return outcome.futureResult
    }
}
