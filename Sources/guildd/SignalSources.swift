import Dispatch

/// Dispatch sources of signals that are watching when this returns.
///
/// `resume()` registers a signal source later, on libdispatch's manager thread, and a signal that arrives before
/// then reaches no source (the signals' default action is already off): under load that gap lasted past the
/// socket's bind, and a SIGTERM sent as soon as the socket appeared now and then left the daemon running, unseen.
/// So each source's registration is awaited, as swift-service-lifecycle does for its own.
enum SignalSources {
    /// A registered source, held only so that it stays alive. `@unchecked`: dispatch sources are thread-safe
    /// objects, and nothing calls this one after its registration.
    struct Kept: @unchecked Sendable {
        let source: any DispatchSourceSignal
    }

    /// Watches `signals` on `queue`, calling `handler` with the signal's number; returns once every source is
    /// registered. Keep the sources for as long as they should fire.
    static func watch(
        _ signals: [Int32],
        queue: DispatchQueue,
        handler: @escaping @Sendable (Int32) -> Void
    ) async -> [Kept] {
        var sources: [Kept] = []
        for number in signals {
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { handler(number) }
            await withCheckedContinuation { (registered: CheckedContinuation<Void, Never>) in
                source.setRegistrationHandler { registered.resume() }
                source.resume()
            }
            sources.append(Kept(source: source))
        }
        return sources
    }
}
