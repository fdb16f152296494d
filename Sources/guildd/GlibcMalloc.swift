#if canImport(Glibc)
import Glibc
#endif

/// glibc's allocator knobs that `<malloc.h>` declares, looked up at run time: Swift's Glibc module does not import
/// that header, and another C library has none of them (nil: nothing to tune).
enum GlibcMalloc {
    /// `malloc_trim`: hands freed heap memory at the top of each arena (and whole free pages inside) back to the kernel.
    static let trim: (@convention(c) (Int) -> Int32)? = Self.symbol("malloc_trim")

    /// `mallopt`: sets one allocator parameter; returns 1 when it took the value.
    static let mallopt: (@convention(c) (Int32, Int32) -> Int32)? = Self.symbol("mallopt")

    /// `M_TRIM_THRESHOLD` and `M_MMAP_THRESHOLD` from `<malloc.h>`.
    static let trimThresholdParameter: Int32 = -1
    static let mmapThresholdParameter: Int32 = -3

    /// The largest mmap threshold glibc accepts on a 64-bit machine (`HEAP_MAX_SIZE / 2`).
    static let largestThreshold = 32 << 20

    /// How the thresholds were left at start.
    enum Thresholds: Equatable, CustomStringConvertible {
        /// Both fixed at this many bytes.
        case fixed(Int)
        /// glibc's own: adaptive (`--malloc-threshold 0`), or what the environment set.
        case glibc(reason: String)

        var description: String {
            switch self {
            case .fixed(let bytes): "fixed at \(bytes) bytes"
            case .glibc(let reason): "glibc's (\(reason))"
            }
        }
    }

    /// Fixes the mmap and trim thresholds at `bytes`, unless `bytes` is 0 or the environment already sets either
    /// (`GLIBC_TUNABLES`, `MALLOC_MMAP_THRESHOLD_`, `MALLOC_TRIM_THRESHOLD_`: the operator's word wins).
    ///
    /// glibc's defaults are adaptive: freeing an mmapped block raises the mmap threshold to that block's size and the
    /// trim threshold to twice it, so after one burst of large buffers every later one comes from the heap, and up to
    /// 64 MiB a heap may keep freed memory instead of returning it. Under connection churn at eight clients that kept
    /// 6.9 MiB until the next minute's trim; with both fixed at 128 KiB every level stayed within 600 KiB over a
    /// million connections (`protocol/performance.md`, "A million connections again").
    static func fixThresholds(bytes: Int, environment: [String: String]) -> Thresholds {
        if bytes == 0 { return .glibc(reason: "adaptive, --malloc-threshold 0") }
        let tunables = environment["GLIBC_TUNABLES"] ?? ""
        if tunables.contains("glibc.malloc.mmap_threshold") || tunables.contains("glibc.malloc.trim_threshold") {
            return .glibc(reason: "set by GLIBC_TUNABLES")
        }
        if environment["MALLOC_MMAP_THRESHOLD_"] != nil || environment["MALLOC_TRIM_THRESHOLD_"] != nil {
            return .glibc(reason: "set by MALLOC_MMAP_THRESHOLD_ or MALLOC_TRIM_THRESHOLD_")
        }
        guard let mallopt = Self.mallopt, let value = Int32(exactly: bytes) else {
            return .glibc(reason: "no mallopt in this C library")
        }
        // Setting either turns glibc's adjustment of both off.
        guard mallopt(Self.trimThresholdParameter, value) == 1, mallopt(Self.mmapThresholdParameter, value) == 1 else {
            return .glibc(reason: "mallopt refused \(bytes)")
        }
        return .fixed(bytes)
    }

    private static func symbol<Function>(_ name: String) -> Function? {
        #if canImport(Glibc)
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else { return nil }
        return unsafeBitCast(symbol, to: Function.self)
        #else
        return nil
        #endif
    }
}
