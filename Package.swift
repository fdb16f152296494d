// swift-tools-version: 6.2
import PackageDescription

let package = Package(
    name: "Guild",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "GuildJSON", targets: ["GuildJSON"]),
        .library(name: "GuildProtocol", targets: ["GuildProtocol"]),
        .library(name: "GuildClient", targets: ["GuildClient"]),
        .executable(name: "guildd", targets: ["guildd"]),
        .executable(name: "guildctl", targets: ["guildctl"]),
        .executable(name: "guild-bench", targets: ["guild-bench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-atomics", from: "1.3.0"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/swiftlang/swift-subprocess", from: "1.0.2"),
    ],
    targets: [
        // MARK: - System libraries

        .systemLibrary(
            name: "CSystemd",
            pkgConfig: "libsystemd",
            providers: [.apt(["libsystemd-dev"])]
        ),

        // MARK: - JSON

        .target(name: "GuildJSON"),
        .testTarget(
            name: "GuildJSONTests",
            dependencies: ["GuildJSON", "GuildProtocol", "GuildTestSupport"]
        ),

        // MARK: - Wire contract

        .target(name: "GuildProtocol", dependencies: ["GuildJSON"]),
        .testTarget(
            name: "GuildProtocolTests",
            dependencies: ["GuildJSON", "GuildProtocol", "GuildTestSupport"]
        ),

        // MARK: - Domain rules

        .target(
            name: "GuildCore",
            dependencies: [
                "GuildJSON",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
        .testTarget(
            name: "GuildCoreTests",
            dependencies: ["GuildCore", "GuildJSON", "GuildProtocol"]
        ),

        // MARK: - Storage

        .target(
            name: "GuildStore",
            dependencies: [
                "GuildCore",
                "GuildJSON",
                "GuildProtocol",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .testTarget(
            name: "GuildStoreTests",
            dependencies: [
                "GuildCore",
                "GuildJSON",
                "GuildProtocol",
                "GuildServer",
                "GuildStore",
                "GuildTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),

        // PostgreSQL, the engine for more than one machine (see protocol/postgresql.md): its own module, so the
        // embedded SQLite store never links it.
        .target(
            name: "GuildPostgres",
            dependencies: [
                "GuildCore",
                "GuildJSON",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),
        .testTarget(
            name: "GuildPostgresTests",
            dependencies: [
                "GuildClient",
                "GuildCore",
                "GuildHarness",
                "GuildJSON",
                "GuildPostgres",
                "GuildProtocol",
                "GuildStore",
                "GuildTestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),

        // MARK: - Transport, dispatch and sessions

        .target(
            name: "GuildServer",
            dependencies: [
                "GuildCore",
                "GuildJSON",
                "GuildProtocol",
                .product(name: "Atomics", package: "swift-atomics"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOExtras", package: "swift-nio-extras"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            resources: [.embedInCode("Resources/openrpc.json")]
        ),
        .testTarget(
            name: "GuildServerTests",
            dependencies: [
                "GuildClient",
                "GuildTestSupport",
                "GuildCore",
                "GuildJSON",
                "GuildProtocol",
                "GuildServer",
                "GuildStore",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),

        // MARK: - Client

        .target(
            name: "GuildClient",
            dependencies: [
                "GuildJSON",
                "GuildProtocol",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOExtras", package: "swift-nio-extras"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "GuildClientTests",
            dependencies: [
                "GuildClient",
                "GuildJSON",
                "GuildProtocol",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),

        // MARK: - Executables

        .executableTarget(
            name: "guildd",
            dependencies: [
                "CSystemd",
                "GuildCore",
                "GuildJSON",
                "GuildPostgres",
                "GuildProtocol",
                "GuildServer",
                "GuildStore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ]
        ),
        .executableTarget(
            name: "guildctl",
            dependencies: [
                "GuildClient",
                "GuildJSON",
                "GuildProtocol",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "guild-contract",
            dependencies: [
                "GuildCore",
                "GuildJSON",
                "GuildProtocol",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "guild-bench",
            dependencies: [
                "GuildClient",
                "GuildCore",
                "GuildHarness",
                "GuildJSON",
                "GuildPostgres",
                "GuildProtocol",
                "GuildStore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),

        // MARK: - Harness and test support

        // Starting, probing and stopping child processes (guildd): shared by guild-bench and the tests.
        .target(
            name: "GuildHarness",
            dependencies: [
                .product(name: "Subprocess", package: "swift-subprocess"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        .testTarget(name: "GuildHarnessTests", dependencies: ["GuildHarness"]),
        .target(
            name: "GuildTestSupport",
            dependencies: [
                "GuildClient",
                "GuildCore",
                "GuildHarness",
                "GuildJSON",
                "GuildPostgres",
                "GuildProtocol",
                "GuildServer",
                "GuildStore",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Tests/GuildTestSupport"
        ),

        // MARK: - End to end

        .testTarget(
            name: "GuildEndToEndTests",
            dependencies: [
                "GuildClient",
                "GuildHarness",
                "GuildJSON",
                "GuildProtocol",
                "GuildTestSupport",
                "guildctl",
                "guildd",
            ]
        ),
    ]
)

// MARK: - Fuzzing

// libFuzzer targets, declared only for `scripts/fuzz` (which sets GUILD_FUZZ=1 and builds them with
// `--sanitize=fuzzer --sanitize=address` in `.build-fuzz`): they have no `main` without the fuzzer runtime, so
// the normal build and `swift test` never see them. See "Fuzzing" in CONTRIBUTING.md.
if Context.environment["GUILD_FUZZ"] == "1" {
    package.targets += [
        .target(name: "FuzzSupport", dependencies: ["GuildJSON", "GuildProtocol"], path: "Tests/Fuzz/FuzzSupport"),
        .executableTarget(
            name: "FuzzParse",
            dependencies: [
                "FuzzSupport",
                "GuildJSON",
                "GuildProtocol",
            ],
            path: "Tests/Fuzz/FuzzParse",
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        ),
        .executableTarget(
            name: "FuzzDispatch",
            dependencies: [
                "FuzzSupport",
                "GuildCore",
                "GuildJSON",
                "GuildProtocol",
                "GuildServer",
                "GuildStore",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Tests/Fuzz/FuzzDispatch",
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        ),
    ]
}

// MARK: - Shared settings for our own targets

for target in package.targets where target.type != .system {
    var settings = target.swiftSettings ?? []
    settings.append(contentsOf: [
        .enableUpcomingFeature("ExistentialAny"),
        .enableUpcomingFeature("MemberImportVisibility"),
        .enableUpcomingFeature("InferIsolatedConformances"),
        .treatAllWarnings(as: .error),
    ])
    if ["GuildJSON", "GuildProtocol", "GuildClient"].contains(target.name) {
        settings.append(.treatWarning("ExplicitSendable", as: .error))
    }
    if target.name == "GuildClient" {
        // Async client calls run on the caller's executor: a caller pinned to the client's event loop
        // (see `GuildClient.executor`) makes round trips without a thread hop.
        settings.append(.enableUpcomingFeature("NonisolatedNonsendingByDefault"))
    }
    target.swiftSettings = settings
}
