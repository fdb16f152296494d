import Foundation
import GuildProtocol
import Testing

/// The files generated from the contract's declarations are committed as generated: `scripts/gen-contract`
/// writes them.
struct GeneratedFilesTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // GuildProtocolTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // package root

    @Test(arguments: ContractText.generatedFiles().map(\.path))
    func committedFileIsTheGeneratedOne(path: String) throws {
        let generated = try #require(ContractText.generatedFiles().first { $0.path == path })
        let committed = try String(contentsOf: Self.root.appendingPathComponent(path), encoding: .utf8)
        #expect(committed == generated.text, "\(path) is stale: run scripts/gen-contract")
    }

    @Test func protocolOpenRPCIsTheDaemonsCopy() throws {
        let linked = try String(contentsOf: Self.root.appendingPathComponent("protocol/openrpc.json"), encoding: .utf8)
        let served = try String(
            contentsOf: Self.root.appendingPathComponent("Sources/GuildServer/Resources/openrpc.json"),
            encoding: .utf8
        )
        #expect(linked == served)
    }

    /// protocol/liveness.md is written by hand: its admission-control section must name every method the
    /// declarations make expensive (errors.md lists them from the declarations).
    @Test func livenessNamesEveryExpensiveMethod() throws {
        let liveness = try String(contentsOf: Self.root.appendingPathComponent("protocol/liveness.md"), encoding: .utf8)
        let section =
            try #require(liveness.components(separatedBy: "## Admission control").dropFirst().first)
            .components(separatedBy: "\n## ").first ?? ""
        #expect(!OpenRPCContract.expensiveMethodNames.isEmpty)
        for name in OpenRPCContract.expensiveMethodNames {
            #expect(section.contains("`\(name)`"), "protocol/liveness.md's admission control does not name \(name)")
        }
        let errors = try String(contentsOf: Self.root.appendingPathComponent("protocol/errors.md"), encoding: .utf8)
        let busy = try #require(errors.split(separator: "\n").first { $0.contains("`SERVER_BUSY`") })
        for name in OpenRPCContract.expensiveMethodNames {
            #expect(busy.contains("`\(name)`"), "protocol/errors.md's SERVER_BUSY row does not name \(name)")
        }
    }

    @Test func methodsAreDeclaredOnce() {
        let names = OpenRPCContract.methods.map { $0.name }
        #expect(Set(names).count == names.count)
    }

    @Test func declaredErrorsAreInTheCatalogWithASummary() {
        for method in OpenRPCContract.methods {
            for reason in method.contract.errors {
                let entry = ErrorReason.entry(for: reason)
                #expect(entry?.summary != nil, "\(method.name) declares \(reason), which has no summary in the catalog")
            }
        }
    }

    @Test func exampleParamsAreDeclaredParams() {
        for method in OpenRPCContract.methods {
            let declared = Set(method.contract.params.map(\.name))
            for (name, _) in method.contract.example.params {
                #expect(declared.contains(name), "\(method.name): example param \(name) is not declared")
            }
        }
    }

    @Test func everyEntryOfTheCatalogIsInItsCodesReasons() {
        let reasons = ErrorReason.sections.flatMap(\.entries).map(\.reason)
        #expect(Set(reasons).count == reasons.count)
        #expect(ErrorReason.catalog.flatMap(\.reasons).count == reasons.count)
    }
}
