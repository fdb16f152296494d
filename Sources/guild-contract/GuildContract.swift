import ArgumentParser
import Foundation
import GuildProtocol

/// Writes or checks the files generated from the wire contract's Swift declarations: `protocol/openrpc.json`
/// (the daemon's `Sources/GuildServer/Resources/openrpc.json`), `protocol/errors.md`, the Python client's
/// error constants, and the Swift reason constants and domain error codes, from the error catalog; the wire's
/// event type and its schemas from the event areas' declarations.
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

        /// Every generated file: the contract's, and the event type's laid out by `swift format` with the
        /// repository's configuration (so that its lint passes on them as on any source).
        func generatedFiles() throws -> [ContractText.GeneratedFile] {
            try ContractText.generatedFiles()
                + EventText.generatedFiles().map { file in
                    ContractText.GeneratedFile(path: file.path, text: try self.swiftFormat(file.text))
                }
        }

        /// `text` as `swift format` lays it out.
        func swiftFormat(_ text: String) throws -> String {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["swift", "format", "format", "--configuration", self.url(".swift-format").path, "-"]
            let input = Pipe()
            let output = Pipe()
            process.standardInput = input
            process.standardOutput = output
            try process.run()
            // Write on another thread: a large file would fill the output pipe before stdin is closed.
            let writer = Thread {
                input.fileHandleForWriting.write(Data(text.utf8))
                try? input.fileHandleForWriting.close()
            }
            writer.start()
            let formatted = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else { throw ExitCode(process.terminationStatus) }
            return String(decoding: formatted, as: UTF8.self)
        }
    }

    /// Writes every generated file that differs from what the declarations generate.
    struct Write: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Writes the generated files.")

        @OptionGroup var location: Location

        func run() throws {
            for file in try self.location.generatedFiles() {
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
            for file in try self.location.generatedFiles() {
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
