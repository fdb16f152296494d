import GuildCore
import Testing

/// Topics and the groups area's audience rule, without a store.
struct EventTopicTests {
    @Test func parsesAreaAndID() throws {
        let topic = try #require(EventTopic("group:@TGS#a:b"))
        #expect(topic.area == "group" && topic.id == "@TGS#a:b")
        #expect(topic == .group("@TGS#a:b"))
        #expect(EventTopic("thing-2:x")?.area == "thing-2")
        for bad in ["group", ":x", "group:", "grüp:x", "a b:x"] { #expect(EventTopic(bad) == nil, "\(bad)") }
    }

    @Test func groupAudienceFollowsMembership() {
        func committed(_ event: GroupEvent) -> CommittedEvent { CommittedEvent(seq: 1, event: event, json: []) }
        let enter = committed(GroupEvent(kind: .memberEnter, groupID: "g", actor: "u", users: ["u"], time: 1, joined: ["u"]))
        var following = false
        #expect(enter.routing.admits("u", following: &following) && following)
        let leave = committed(GroupEvent(kind: .memberLeave, groupID: "g", actor: "u", users: ["u"], time: 1, left: ["u"]))
        #expect(leave.routing.admits("u", following: &following) && !following)
        let message = committed(GroupEvent(kind: .newMessage, groupID: "g", actor: "o", time: 1, excluded: ["m2"]))
        var member = true
        #expect(message.routing.admits("m1", following: &member))
        #expect(!message.routing.admits("m2", following: &member))
        #expect(!message.routing.admits("outsider", following: &following))
        let application = committed(
            GroupEvent(kind: .receiveJoinApplication, groupID: "g", actor: "a", users: ["a"], audience: .named, recipients: ["o"], time: 1)
        )
        #expect(application.routing.addressees == ["o"])
        #expect(enter.routing.joining == ["u"] && leave.routing.leaving == ["u"])
        #expect(enter.topic == .group("g") && enter.kind == "memberEnter" && enter.groupEvent?.users == ["u"])
    }
}
