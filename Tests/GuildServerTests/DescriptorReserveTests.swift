import Testing

@testable import GuildServer

struct DescriptorReserveTests {
    @Test func heldGivenUpAndTakenBack() {
        let reserve = DescriptorReserve(count: 3)
        #expect(reserve.held == 3)
        reserve.release()
        #expect(reserve.held == 0)
        reserve.release()  // twice: nothing more to give up
        #expect(reserve.held == 0)
        #expect(reserve.restore())
        #expect(reserve.held == 3)
        #expect(reserve.restore())  // held already: no more
        #expect(reserve.held == 3)
        reserve.release()
    }
}
