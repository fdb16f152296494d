import FuzzSupport

/// libFuzzer entry point: generated JSON-RPC traffic against a real in-process `GuildServer` on a temporary
/// SQLite store, with a liveness probe after every input. See `DispatchHarness`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDispatch(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    DispatchHarness.shared.run(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}
