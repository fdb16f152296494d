import Foundation

/// Resident memory of a process, from `/proc/PID/status`.
public struct MemoryStatus: Sendable {
    /// VmRSS: resident set size now.
    public var rssBytes: Int
    /// VmHWM: peak resident set size so far.
    public var hwmBytes: Int
    /// RssAnon: the resident anonymous memory (heap, stacks) within VmRSS, without the files mapped (the
    /// executable's code, which pages in as code first runs); nil when the kernel does not say.
    public var anonymousBytes: Int?

    /// VmRSS in MiB.
    public var rssMiB: Double { Double(self.rssBytes) / 1_048_576 }
    /// VmHWM in MiB.
    public var hwmMiB: Double { Double(self.hwmBytes) / 1_048_576 }

    /// A status with the given sizes in bytes.
    public init(rssBytes: Int, hwmBytes: Int, anonymousBytes: Int? = nil) {
        self.rssBytes = rssBytes
        self.hwmBytes = hwmBytes
        self.anonymousBytes = anonymousBytes
    }

    /// Reads VmRSS, VmHWM and RssAnon of `pid`; throws when the process is gone.
    public static func read(pid: Int32) throws -> MemoryStatus {
        let text = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        func field(_ name: String) -> Int? {
            for line in text.split(separator: "\n") where line.hasPrefix(name + ":") {
                let parts = line.dropFirst(name.count + 1).split(whereSeparator: { $0 == " " || $0 == "\t" })
                guard let number = parts.first.flatMap({ Int($0) }) else { return nil }
                let unit = parts.count > 1 ? parts[1].lowercased() : "kb"
                return unit == "kb" ? number * 1024 : number
            }
            return nil
        }
        guard let rss = field("VmRSS"), let hwm = field("VmHWM") else {
            throw DaemonError("no VmRSS/VmHWM in /proc/\(pid)/status (process gone?)")
        }
        return MemoryStatus(rssBytes: rss, hwmBytes: hwm, anonymousBytes: field("RssAnon"))
    }
}
