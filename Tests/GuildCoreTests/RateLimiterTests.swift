import Testing

@testable import GuildCore

/// The sliding-window limiter: at most `limit` events per key in any window.
struct RateLimiterTests {
    @Test func refusesTheEventOverTheLimitWithinTheWindow() {
        let limiter = RateLimiter(limit: 3, windowMilliseconds: 1_000)
        #expect(limiter.allow("k", now: 0))
        #expect(limiter.allow("k", now: 100))
        #expect(limiter.allow("k", now: 200))
        #expect(!limiter.allow("k", now: 300))
        #expect(!limiter.allow("k", now: 999))
    }

    @Test func theWindowSlides() {
        let limiter = RateLimiter(limit: 2, windowMilliseconds: 1_000)
        #expect(limiter.allow("k", now: 0))
        #expect(limiter.allow("k", now: 500))
        #expect(!limiter.allow("k", now: 900))
        // The event at 0 leaves the window at 1,000; the one at 500 is still in it.
        #expect(limiter.allow("k", now: 1_000))
        #expect(!limiter.allow("k", now: 1_400))
        #expect(limiter.allow("k", now: 1_500))
    }

    @Test func aRefusedEventIsNotCounted() {
        let limiter = RateLimiter(limit: 1, windowMilliseconds: 1_000)
        #expect(limiter.allow("k", now: 0))
        for now in stride(from: Int64(100), to: 1_000, by: 100) { #expect(!limiter.allow("k", now: now)) }
        #expect(limiter.allow("k", now: 1_000))
    }

    @Test func keysAreIndependent() {
        let limiter = RateLimiter(limit: 1, windowMilliseconds: 1_000)
        #expect(limiter.allow("a", now: 0))
        #expect(limiter.allow("b", now: 0))
        #expect(!limiter.allow("a", now: 1))
    }
}
