/// The events area: `events.subscribe` and `events.unsubscribe` over the one event log.
struct EventArea: FeatureArea {
    let hub: EventHub

    func register(in registry: inout MethodRegistry) {
        registry.registerEventMethods(self.hub)
    }
}
