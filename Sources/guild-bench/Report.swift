import Foundation

/// The outcome of a whole run: measurements, and the benchmarks that failed with an error.
struct Report: Sendable {
    struct Failure: Sendable {
        var benchmark: String
        var error: String
    }

    var measurements: [Measurement] = []
    var failures: [Failure] = []
    var settings: [String: String] = [:]

    /// The Markdown table: benchmark, figure, value, baseline, ratio, target, result, notes.
    func markdown() -> String {
        var lines = [
            "| Benchmark | Figure | Value | Baseline | Ratio | Target | Result | Notes |",
            "|---|---|---:|---|---:|---|---|---|",
        ]
        for m in self.measurements {
            var baseline = "—"
            if let value = m.baseline {
                baseline = m.unit.format(value) + (m.baselineName.map { " (\($0))" } ?? "")
            }
            let ratio = m.ratio.map { Format.decimal($0, digits: 2) + "x" } ?? "—"
            let target = m.target?.describe(unit: m.unit) ?? "—"
            let result: String
            switch m.passed {
            case true?: result = "PASS"
            case false?: result = "**FAIL**"
            case nil: result = "—"
            }
            let value = m.unit.format(m.value)
            let note = Self.escape(m.note ?? "")
            lines.append("| \(m.benchmark) | \(m.figure) | \(value) | \(baseline) | \(ratio) | \(target) | \(result) | \(note) |")
        }
        for failure in self.failures {
            let error = failure.error.split(separator: "\n").first.map(String.init) ?? failure.error
            lines.append("| \(failure.benchmark) | error: \(Self.escape(error)) | — | — | — | — | **ERROR** | |")
        }
        return lines.joined(separator: "\n")
    }

    private static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "|", with: "\\|")
    }

    /// One line: a summary; e.g. "3 of 4 targets met, 1 error".
    func summary() -> String {
        let targets = self.measurements.compactMap(\.passed)
        var text = "\(targets.filter { $0 }.count) of \(targets.count) targets met"
        if !self.failures.isEmpty { text += ", \(self.failures.count) benchmark(s) failed with an error" }
        return text
    }

    /// The results as one compact JSON object.
    func json() throws -> String {
        struct Row: Encodable {
            var benchmark: String
            var figure: String
            var value: Double?
            var unit: String
            var baseline: Double?
            var baselineName: String?
            var ratio: Double?
            var target: String?
            var passed: Bool?
            var note: String?
        }
        struct FailureRow: Encodable {
            var benchmark: String
            var error: String
        }
        struct Document: Encodable {
            var settings: [String: String]
            var results: [Row]
            var errors: [FailureRow]
        }
        func finite(_ value: Double?) -> Double? {
            guard let value, value.isFinite else { return nil }
            return value
        }
        let document = Document(
            settings: self.settings,
            results: self.measurements.map { m in
                Row(
                    benchmark: m.benchmark,
                    figure: m.figure,
                    value: finite(m.value),
                    unit: m.unit.rawValue,
                    baseline: finite(m.baseline),
                    baselineName: m.baselineName,
                    ratio: finite(m.ratio),
                    target: m.target?.describe(unit: m.unit),
                    passed: m.passed,
                    note: m.note
                )
            },
            errors: self.failures.map { FailureRow(benchmark: $0.benchmark, error: $0.error) }
        )
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(document), as: UTF8.self)
    }
}
