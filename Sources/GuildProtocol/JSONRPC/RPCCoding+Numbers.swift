import Foundation
import GuildJSON

extension RPCCoding {
    /// The most times ``unfitNumber(_:in:)`` decodes the params again.
    static let unfitNumberProbes = 8

    /// Names the number a decoding failed on, for `JSONDecoder`'s answer to a number its integer type cannot hold
    /// (`9223372036854775808`, `1e300` or `1.5` for an `Int`): "The given data was not valid JSON", with no
    /// coding path. The params are valid JSON (the request was parsed), so that answer is about a number.
    ///
    /// The suspects are the numbers no 64-bit integer holds exactly. They are all replaced by `""` and the text
    /// is decoded again: the decoder stops at the first suspect it reads as a number, with a type mismatch that
    /// names its path and the type it wanted. Wanted as an integer, that suspect is the answer; wanted as a
    /// floating-point number, it is fine, so it is put back and the text decoded again (a few times at most).
    /// Nil when the failure is not found so; the caller keeps the decoder's own words.
    static func unfitNumber<T: Decodable>(_ type: T.Type, in bytes: [UInt8]) -> RPCError? {
        let suspects = bytes.withUnsafeBytes { buffer in Self.unfitNumbers(in: buffer) }
        guard !suspects.isEmpty else { return nil }
        var restored = Set<Int>()
        for _ in 0..<Self.unfitNumberProbes {
            var probe: [UInt8] = []
            probe.reserveCapacity(bytes.count)
            var copied = 0
            for (index, suspect) in suspects.enumerated() where !restored.contains(index) {
                probe.append(contentsOf: bytes[copied..<suspect.range.lowerBound])
                probe.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: "\"")])
                copied = suspect.range.upperBound
            }
            probe.append(contentsOf: bytes[copied...])
            do {
                _ = try JSONDecoder().decode(type, from: Data(probe))
                return nil
            } catch DecodingError.typeMismatch(let wanted, let context) {
                let field = Self.fieldPath(context.codingPath)
                guard let index = suspects.firstIndex(where: { $0.path == field }), !restored.contains(index) else { return nil }
                if wanted is any BinaryFloatingPoint.Type {
                    restored.insert(index)
                    continue
                }
                guard let integer = wanted as? any FixedWidthInteger.Type else { return nil }
                return Self.unfitNumberError(suspects[index], integer: integer)
            } catch {
                return nil
            }
        }
        return nil
    }

    /// A number found by ``unfitNumbers(in:)``: where it is in the params and its text.
    struct UnfitNumber {
        /// The field, as ``fieldPath(_:)`` writes it (`limit`, `fields.count`, `[0]`).
        var path: String
        var range: Range<Int>
        var text: String
    }

    /// The numbers in a JSON text that no 64-bit integer holds exactly, in text order. A number written with a
    /// fraction or an exponent is read as a `Double` first, as `JSONDecoder` does: an integral one in range
    /// (`1.0`, `2.5e1`) is decoded as an integer, so it is not one.
    static func unfitNumbers(in bytes: UnsafeRawBufferPointer) -> [UnfitNumber] {
        let scanner = JSONScanner(maximumDepth: Int.max)
        guard let top = try? scanner.scan(bytes) else { return [] }
        var found: [UnfitNumber] = []
        func walk(_ value: JSONScanner.Value, _ path: String) {
            switch value.kind {
            case .number:
                let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[value.range]), as: UTF8.self)
                let plain = !text.utf8.contains { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }
                let fits =
                    plain
                    ? Int64(text) != nil : (Double(text).map { $0.rounded() == $0 && $0 >= -0x1p63 && $0 < 0x1p63 } ?? false)
                if !fits {
                    found.append(UnfitNumber(path: path, range: value.range, text: text))
                }
            case .object:
                for member in scanner.members(of: value, in: bytes) {
                    walk(member.value, path.isEmpty ? member.key : path + "." + member.key)
                }
            case .array:
                for (index, element) in scanner.elements(of: value, in: bytes).enumerated() {
                    walk(element, path + "[\(index)]")
                }
            default:
                break
            }
        }
        walk(top, "")
        return found
    }

    /// What is wrong with a number where an integer of type `integer` is wanted: a fraction (`1.5`, `1e-300`) is
    /// not an integer (`INVALID_PARAMS`); anything else is beyond the type's range (`NUMBER_OUT_OF_RANGE`).
    static func unfitNumberError(_ number: UnfitNumber, integer: any FixedWidthInteger.Type) -> RPCError {
        let shown = number.text.count > 40 ? number.text.prefix(40) + "…" : number.text
        let field = number.path.isEmpty ? nil : number.path
        let name = number.path.isEmpty ? "params" : number.path
        if let value = Double(number.text), value.isFinite, value.rounded() != value {
            return .invalidParams("\"\(name)\" must be an integer, not \(shown)", field: field)
        }
        return .invalidParams(
            "\"\(name)\" is out of range: \(shown) is not an integer from \(integer.min) to \(integer.max)",
            field: field,
            reason: ErrorReason.numberOutOfRange
        )
    }
}
