import Foundation

/// Paths of the built products and the package.
public enum Build {
    /// The directory holding the built executables (next to the test bundle).
    public static let products: URL = {
        var url = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        while url.path != "/" {
            if FileManager.default.isExecutableFile(atPath: url.appendingPathComponent("guildd").path) { return url }
            url.deleteLastPathComponent()
        }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../.build/debug")
    }()

    /// The built daemon.
    public static let guildd = products.appendingPathComponent("guildd").path
    /// The built command-line client.
    public static let guildctl = products.appendingPathComponent("guildctl").path
    /// The package's root directory.
    public static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
}
