import FuzzSupport

/// libFuzzer entry point: the server's framing, the JSON scanner and the request parser, checked against
/// `ReferenceJSON` and a model of the framing. See `ParseHarness`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzParse(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    ParseHarness.run(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}
