import GRDB

/// The schema's history. Migrations describe the past: they use SQL and string literals, never app types,
/// and are never edited once released; a change is a new migration.
enum Migrations {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: users and tokens") { db in
            try db.execute(
                sql: """
                    CREATE TABLE "user" (
                        id TEXT PRIMARY KEY NOT NULL,
                        username TEXT UNIQUE COLLATE NOCASE,
                        email TEXT UNIQUE COLLATE NOCASE,
                        phone TEXT UNIQUE,
                        displayName TEXT,
                        fields TEXT NOT NULL DEFAULT '{}',
                        passwordHash TEXT,
                        isPseudo INTEGER NOT NULL CHECK (isPseudo IN (0, 1)),
                        createdAt INTEGER NOT NULL,
                        modifiedAt INTEGER NOT NULL,
                        CHECK (isPseudo = 1 OR passwordHash IS NOT NULL),
                        CHECK (isPseudo = 1 OR username IS NOT NULL OR email IS NOT NULL OR phone IS NOT NULL)
                    );
                    CREATE TABLE token (
                        hash BLOB PRIMARY KEY NOT NULL CHECK (length(hash) = 32),
                        userID TEXT NOT NULL REFERENCES "user"(id) ON DELETE CASCADE,
                        kind TEXT NOT NULL CHECK (kind IN ('access', 'refresh')),
                        family TEXT NOT NULL,
                        expiresAt INTEGER,
                        createdAt INTEGER NOT NULL
                    ) WITHOUT ROWID;
                    CREATE INDEX token_family ON token(family);
                    CREATE INDEX token_userID ON token(userID);
                    """
            )
        }
        return migrator
    }
}
