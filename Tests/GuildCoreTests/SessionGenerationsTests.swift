import GuildCore
import Testing

/// The counters that tell a bound session when to be checked again, and the epoch that tells a check that
/// read storage whether a change may have raced it.
struct SessionGenerationsTests {
    @Test func aBumpMovesOnlyItsUsersGenerationAndTheEpoch() {
        let generations = SessionGenerations()
        #expect(generations.current("u1") == 0 && generations.epoch == 0)
        generations.bump("u1")
        generations.bump("u1")
        generations.bump("u2")
        #expect(generations.current("u1") == 2 && generations.current("u2") == 1 && generations.current("u3") == 0)
        #expect(generations.epoch == 3)
    }

    @Test func aCheckRacedByAnyChangeIsRecordedSoThatItIsRepeated() {
        let generations = SessionGenerations()
        generations.bump("u1")
        // Nothing changed while the check read: its generation is the current one.
        let quiet = generations.epoch
        #expect(generations.generation(of: "u1", checkedSince: quiet) == 1)
        // A change (any user's) committed while it read: the recorded generation never becomes current.
        let raced = generations.epoch
        generations.bump("u2")
        let recorded = generations.generation(of: "u1", checkedSince: raced)
        #expect(recorded != generations.current("u1"))
        for _ in 0..<3 { generations.bump("u1") }
        #expect(recorded != generations.current("u1"))
    }
}
