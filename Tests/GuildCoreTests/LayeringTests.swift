import Foundation
import Testing

/// The rules module holds no wire text: it imports the JSON library and system libraries, never the wire
/// contract, the store or the server (which would let a wire type or an engine detail into a rule).
@Suite struct LayeringTests {
    static let allowed: Set<String> = ["Foundation", "Synchronization", "GuildJSON", "Crypto", "_CryptoExtras"]

    @Test func theRulesModuleImportsNoWireStoreOrServerModule() throws {
        let sources = URL(filePath: #filePath).deletingLastPathComponent().appending(path: "../../Sources/GuildCore").standardized
        let files = try #require(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
            .compactMap { $0 as? URL }
            .filter { $0.pathExtension == "swift" }
        #expect(files.count > 50, "found \(files.count) files under \(sources.path)")
        var imports: [String: Set<String>] = [:]
        for file in files {
            for line in try String(contentsOf: file, encoding: .utf8).split(separator: "\n") {
                let words = line.split(separator: " ")
                guard let index = words.firstIndex(of: "import"), words[..<index].allSatisfy({ $0.hasPrefix("@") }),
                    index + 1 < words.count
                else { continue }
                imports[String(words[index + 1]), default: []].insert(file.lastPathComponent)
            }
        }
        #expect(imports["GuildJSON"] != nil)
        let forbidden = imports.filter { !Self.allowed.contains($0.key) }
        #expect(forbidden.isEmpty, "GuildCore imports \(forbidden)")
    }
}
