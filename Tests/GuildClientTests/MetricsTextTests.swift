import GuildClient
import Testing

/// `MetricsText`: reading `system.metrics`' Prometheus text (what `guildctl top` and guild-bench use).
struct MetricsTextTests {
    @Test func samplesAreSummedByNameWithTheirLabelsDropped() {
        let text = """
            # HELP guild_requests_total Requests.
            # TYPE guild_requests_total counter
            guild_requests_total{method="system.ping"} 3
            guild_requests_total{method="user.get"} 4
            # TYPE guild_store_commit_duration_seconds histogram
            guild_store_commit_duration_seconds_bucket{le="0.001"} 2
            guild_store_commit_duration_seconds_sum 0.001792999
            guild_store_commit_duration_seconds_count 4
            guild_connections 2.5
            not a sample
            """
        let sums = MetricsText.sums(text)
        #expect(sums["guild_requests_total"] == 7)
        #expect(sums["guild_store_commit_duration_seconds_sum"] == 0.001792999)
        #expect(sums["guild_store_commit_duration_seconds_count"] == 4)
        #expect(sums["guild_store_commit_duration_seconds_bucket"] == 2)
        #expect(sums["guild_connections"] == 2.5)
        #expect(sums.count == 5, "comments and lines without a number are skipped: \(sums)")
    }

    @Test func samplesAreKeptByTheirSeriesAsWritten() {
        let text = """
            # TYPE guild_wal_checkpoints_total counter
            guild_wal_checkpoints_total{mode="passive"} 12
            guild_wal_checkpoints_total{mode="restart"} 2
            guild_store_commit_duration_seconds_bucket{le="0.01"} 40
            guild_events_pruned_total 1000
            not a sample
            """
        let samples = MetricsText.samples(text)
        #expect(samples[#"guild_wal_checkpoints_total{mode="passive"}"#] == 12)
        #expect(samples[#"guild_wal_checkpoints_total{mode="restart"}"#] == 2)
        #expect(samples[#"guild_store_commit_duration_seconds_bucket{le="0.01"}"#] == 40)
        #expect(samples["guild_events_pruned_total"] == 1000)
        #expect(samples.count == 4, "comments and lines without a number are skipped: \(samples)")
    }
}
