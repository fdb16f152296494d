import Testing

extension Trait where Self == TimeLimitTrait {
    /// The time limit of each test in an end-to-end suite: there only to catch a hang, so long enough that no load
    /// reaches it. These tests start real daemons and child processes, and each phase of `scripts/test` starts its
    /// tests all at once (Swift Testing 6.3 runs them unbounded). With two busy loops beside a clean-clone run on
    /// 2 vCPUs (issue 37), the end-to-end phase on PostgreSQL took three times its idle time: the access matrices
    /// up to 6.7 minutes, ten others 3.8-4.6 minutes, which left 10-minute limits a 1.5-2x margin. CI's own
    /// limit on a whole run is 90 minutes.
    public static var endToEnd: Self { .timeLimit(.minutes(30)) }
}
