extension ContractText {
    /// `protocol/errors.md`: the catalog's sections (``ErrorReason/sections``) as Markdown tables.
    public static func errorsMarkdown(_ sections: [ErrorSection] = ErrorReason.sections) -> String {
        var parts = [ErrorSection.preamble]
        for section in sections {
            parts.append("## \(section.title)")
            parts.append(section.introduction)
            if section.listsExtraMembers {
                parts.append("| code | reason | when | extra `data` members |")
                parts.append("|---|---|---|---|")
            } else {
                parts.append("| code | reason | when |")
                parts.append("|---|---|---|")
            }
            for entry in section.entries {
                var row = "| `\(entry.code.rawValue)` | `\(entry.reason)` | \(entry.when) |"
                if section.listsExtraMembers {
                    row += entry.extra.isEmpty ? " |" : " " + entry.extra.map { "`\($0)`" }.joined(separator: ", ") + " |"
                }
                parts.append(row)
            }
            parts.append(section.closing)
        }
        parts.append(ErrorSection.trailer)
        return parts.joined(separator: "\n")
    }

    /// `clients/python/guild_client/error_codes.py`: one constant per reason whose value is its code, per
    /// section of the catalog, then `ERRORS`, every `(code, reason)` pair in the catalog's order.
    public static func pythonErrorConstants(_ sections: [ErrorSection] = ErrorReason.sections) -> String {
        var lines =
            Self.generatedHeader(from: Self.catalogSource, comment: "#") + [
                "\"\"\"Every error code and reason of the Guild protocol (generated).",
                "",
                "Each ``data.reason`` is a constant whose value is its JSON-RPC ``code``,",
                "e.g. ``CURSOR_EXPIRED == 41001``; reasons that share a code each have",
                "their own constant.  ``ERRORS`` holds every ``(code, reason)`` pair in",
                "the order of ``protocol/errors.md``.",
                "\"\"\"",
            ]
        for section in sections {
            lines += ["", "# \(section.title)"]
            lines += section.entries.map { "\($0.reason) = \($0.code.rawValue)" }
        }
        lines += ["", "ERRORS = ("]
        lines += sections.flatMap(\.entries).map { "    (\($0.code.rawValue), \"\($0.reason)\")," }
        lines += [")", ""]
        return lines.joined(separator: "\n")
    }

    /// `Sources/GuildProtocol/JSONRPC/ErrorReason.swift`: a constant per reason of the catalog, named by
    /// ``ErrorEntry/name``, for method declarations and the transport to name reasons by.
    public static func errorReasonSwift(_ sections: [ErrorSection] = ErrorReason.sections) -> String {
        var lines =
            Self.generatedHeader(from: Self.catalogSource, comment: "//") + [
                "",
                "/// The stable `data.reason` strings Guild puts in every error it sends (see `protocol/errors.md`).",
                "public enum ErrorReason: Sendable {",
            ]
        for section in sections {
            for entry in section.entries {
                lines.append("    /// Code \(entry.code.rawValue), in \"\(section.title)\" of `protocol/errors.md`.")
                lines.append("    public static let \(entry.name) = \"\(entry.reason)\"")
            }
        }
        lines += ["}", ""]
        return lines.joined(separator: "\n")
    }

    /// `Sources/GuildCore/Errors/GuildError+Code.swift`: the domain's closed set of failures, a case per catalog
    /// entry with a ``ErrorEntry/domain``. The rules module names its failures by these cases without knowing
    /// their wire form; the server maps each back to its entry.
    public static func domainCodesSwift(_ sections: [ErrorSection] = ErrorReason.sections) -> String {
        var lines =
            Self.generatedHeader(from: Self.catalogSource, comment: "//") + [
                "",
                "extension GuildError {",
                "    /// The kind of failure: a closed set, one case per domain error of the catalog, which gives each its",
                "    /// JSON-RPC code and `data.reason`.",
                "    public enum Code: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {",
            ]
        for entry in sections.flatMap(\.entries) {
            guard let domain = entry.domain, let name = entry.domainCase else { continue }
            lines += Self.docComment(domain.meaning, indent: "        ")
            lines.append("        case \(name)")
        }
        lines += [
            "",
            "        public var description: String { self.rawValue }",
            "    }",
            "}",
            "",
        ]
        return lines.joined(separator: "\n")
    }

    /// Where the error files come from.
    static let catalogSource = "the error catalog (Sources/GuildProtocol/Methods/Contract/ErrorReason+Catalog.swift)"

    /// The first lines of a generated file, as comments starting with `comment`: what it is generated from,
    /// and that it is not to be edited.
    public static func generatedHeader(from source: String, comment: String) -> [String] {
        Self.wrapped(
            "Generated from \(source) by `scripts/gen-contract`. Do not edit: change the source, then run that script again.",
            prefix: comment
        )
    }

    /// `text` as `///` lines of at most 120 characters.
    public static func docComment(_ text: String, indent: String) -> [String] {
        Self.wrapped(text, prefix: indent + "///")
    }

    /// `text` in lines of at most 120 characters, each starting with `prefix` and a space.
    private static func wrapped(_ text: String, prefix: String) -> [String] {
        var lines: [String] = []
        var line = prefix
        for word in text.split(separator: " ") {
            if line.count + 1 + word.count > 120 && line != prefix {
                lines.append(line)
                line = prefix
            }
            line += " " + word
        }
        lines.append(line)
        return lines
    }

    /// A generated file: its path in the repository and its text.
    public struct GeneratedFile: Sendable {
        /// The path, relative to the repository's root.
        public var path: String
        /// The text.
        public var text: String

        /// A file at `path` holding `text`.
        public init(path: String, text: String) {
            self.path = path
            self.text = text
        }
    }

    /// Every file generated from the declarations. `protocol/openrpc.json` is a link to the daemon's copy.
    public static func generatedFiles() -> [GeneratedFile] {
        [
            GeneratedFile(
                path: "Sources/GuildServer/Resources/openrpc.json",
                text: Self.prettyJSON(OpenRPCContract.document())
            ),
            GeneratedFile(path: "protocol/errors.md", text: Self.errorsMarkdown()),
            GeneratedFile(path: "clients/python/guild_client/error_codes.py", text: Self.pythonErrorConstants()),
            GeneratedFile(path: "Sources/GuildProtocol/JSONRPC/ErrorReason.swift", text: Self.errorReasonSwift()),
            GeneratedFile(path: "Sources/GuildCore/Errors/GuildError+Code.swift", text: Self.domainCodesSwift()),
        ]
    }
}
