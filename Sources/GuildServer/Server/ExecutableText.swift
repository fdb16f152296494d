import Foundation

/// The daemon's own machine code, as mapped from its executable.
///
/// Start-up runs code that a serving daemon never runs again (argument parsing, migrations, the method table,
/// the runtime's first protocol-conformance scans), and the kernel maps each page it touches together with its
/// neighbours (fault-around), so right after start-up about 20 MiB of the executable's code counts as resident.
/// ``releaseResidentPages()`` drops the process's mappings of those pages once start-up is over: the pages stay in
/// the page cache (no longer pinned by a mapping, so the kernel may reclaim them), and the code a request runs is
/// mapped again on its first use (a minor fault, no I/O).
public enum ExecutableText {
    /// Advises the kernel that the executable's code mappings (`r-xp` entries of `/proc/self/maps` backed by
    /// `/proc/self/exe`) are not needed; returns the bytes advised. Only code: it is never written, so dropping a
    /// page loses nothing (a writable or relocated mapping would lose its contents and must never be passed).
    @discardableResult
    public static func releaseResidentPages() -> Int {
        guard let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"),
            let maps = try? String(contentsOfFile: "/proc/self/maps", encoding: .utf8)
        else { return 0 }
        var released = 0
        for line in maps.split(separator: "\n") {
            // start-end perms offset device inode path
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count == 6, fields[1] == "r-xp", fields[5] == executable else { continue }
            let bounds = fields[0].split(separator: "-")
            guard bounds.count == 2, let start = UInt(bounds[0], radix: 16), let end = UInt(bounds[1], radix: 16), end > start,
                let address = UnsafeMutableRawPointer(bitPattern: start)
            else { continue }
            if madvise(address, Int(end - start), MADV_DONTNEED) == 0 { released += Int(end - start) }
        }
        return released
    }
}
