/// The JSON-RPC 2.0 specification's example methods (`subtract`, `sum`, ...), so its examples run as written.
struct ConformanceArea: FeatureArea {
    func register(in registry: inout MethodRegistry) {
        registry.registerConformanceMethods()
    }
}
