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
        let rule = GroupEventAudience()
        func committed(_ event: GroupEvent) -> CommittedEvent { CommittedEvent(seq: 1, event: event, json: []) }
        let enter = committed(GroupEvent(kind: .memberEnter, groupID: "g", actor: "u", users: ["u"], time: 1, joined: ["u"]))
        var following = false
        #expect(rule.admits(enter, userID: "u", following: &following) && following)
        let leave = committed(GroupEvent(kind: .memberLeave, groupID: "g", actor: "u", users: ["u"], time: 1, left: ["u"]))
        #expect(rule.admits(leave, userID: "u", following: &following) && !following)
        let message = committed(GroupEvent(kind: .newMessage, groupID: "g", actor: "o", time: 1, excluded: ["m2"]))
        var member = true
        #expect(rule.admits(message, userID: "m1", following: &member))
        #expect(!rule.admits(message, userID: "m2", following: &member))
        #expect(!rule.admits(message, userID: "outsider", following: &following))
        let application = committed(
            GroupEvent(kind: .receiveJoinApplication, groupID: "g", actor: "a", users: ["a"], audience: .named, recipients: ["o"], time: 1)
        )
        #expect(rule.routing(of: application).addressees == ["o"])
        #expect(rule.routing(of: enter).joining == ["u"] && rule.routing(of: leave).leaving == ["u"])
        #expect(enter.topic == .group("g") && enter.kind == "memberEnter" && enter.groupEvent?.users == ["u"])
    }
}
