import ArgumentParser
import Foundation
import GuildProtocol

/// Writes or checks the files generated from the wire contract's Swift declarations: `protocol/openrpc.json`
/// (the daemon's `Sources/GuildServer/Resources/openrpc.json`), `protocol/errors.md`, the Python client's
/// error constants, and the Swift reason constants and domain error codes, from the error catalog.
@main
struct GuildContract: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "guild-contract",
        abstract: "Generates protocol/openrpc.json, protocol/errors.md and the error constants (Python and Swift).",
        subcommands: [Write.self, Check.self, Print.self]
    )

    struct Location: ParsableArguments {
        @Option(help: "The repository's root directory.")
        var root = "."

        func url(_ path: String) -> URL {
            URL(fileURLWithPath: self.root).appendingPathComponent(path)
        }
    }

    /// Writes every generated file that differs from what the declarations generate.
    struct Write: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Writes the generated files.")

        @OptionGroup var location: Location

        func run() throws {
            for file in ContractText.generatedFiles() {
                let url = self.location.url(file.path)
                if (try? String(contentsOf: url, encoding: .utf8)) != file.text {
                    try Data(file.text.utf8).write(to: url)
                    print("wrote \(file.path)")
                }
            }
        }
    }

    /// Exits non-zero, naming each file, when a committed file differs from what the declarations generate.
    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Fails when a generated file is stale.")

        @OptionGroup var location: Location

        func run() throws {
            var stale: [String] = []
            for file in ContractText.generatedFiles() {
                if (try? String(contentsOf: self.location.url(file.path), encoding: .utf8)) != file.text {
                    stale.append(file.path)
                }
            }
            guard stale.isEmpty else {
                for path in stale {
                    FileHandle.standardError.write(Data("\(path) differs from the contract's declarations\n".utf8))
                }
                FileHandle.standardError.write(Data("run scripts/gen-contract\n".utf8))
                throw ExitCode.failure
            }
        }
    }

    /// Prints one generated file.
    struct Print: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Prints one generated file.")

        enum Document: String, ExpressibleByArgument, CaseIterable {
            case openrpc, errors, python
        }

        @Argument(help: "openrpc, errors or python.")
        var document: Document

        func run() {
            switch self.document {
            case .openrpc: print(ContractText.prettyJSON(OpenRPCContract.document()), terminator: "")
            case .errors: print(ContractText.errorsMarkdown(), terminator: "")
            case .python: print(ContractText.pythonErrorConstants(), terminator: "")
            }
        }
    }
}
