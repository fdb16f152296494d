import GRDB

extension IMGroupsStoreArea {
    /// Group messages (kept for history, not AVChatRoom's) and one read mark per membership.
    ///
    /// A read mark is created with its membership by a trigger, at the group's newest seq then (`baseSeq`:
    /// Work and Public members see and count only later messages), and goes with it (a re-join starts anew).
    static func registerMessageMigration(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("im-messages: stored group messages and read marks") { db in
            try db.execute(
                sql: """
                    CREATE TABLE group_message (
                        groupID TEXT NOT NULL REFERENCES "group"(id) ON DELETE CASCADE,
                        seq INTEGER NOT NULL,
                        msgID TEXT NOT NULL,
                        sender TEXT NOT NULL,
                        time INTEGER NOT NULL,
                        priority TEXT NOT NULL,
                        body BLOB,
                        eventSeq INTEGER NOT NULL,
                        revokedBy TEXT,
                        PRIMARY KEY (groupID, seq)
                    ) WITHOUT ROWID;
                    CREATE UNIQUE INDEX group_message_id ON group_message(groupID, msgID);
                    CREATE INDEX group_message_time ON group_message(time);
                    ALTER TABLE "group" ADD COLUMN atAllSeq INTEGER NOT NULL DEFAULT 0;
                    CREATE TABLE group_read (
                        membershipID INTEGER PRIMARY KEY REFERENCES membership(id) ON DELETE CASCADE,
                        baseSeq INTEGER NOT NULL,
                        readSeq INTEGER NOT NULL,
                        mentionSeq INTEGER NOT NULL DEFAULT 0,
                        ownUnread INTEGER NOT NULL DEFAULT 0
                    );
                    INSERT INTO group_read (membershipID, baseSeq, readSeq)
                        SELECT m.id, g.messageSeq, g.messageSeq FROM membership m JOIN "group" g ON g.id = m.groupID;
                    CREATE TRIGGER group_read_on_join AFTER INSERT ON membership BEGIN
                        INSERT INTO group_read (membershipID, baseSeq, readSeq)
                            SELECT NEW.id, g.messageSeq, g.messageSeq FROM "group" g WHERE g.id = NEW.groupID;
                    END;
                    CREATE TRIGGER group_read_on_leave AFTER DELETE ON membership BEGIN
                        DELETE FROM group_read WHERE membershipID = OLD.id;
                    END;
                    """
            )
        }
        migrator.registerMigration("im-messages-2: covering indexes for a user's unread counts") { db in
            // `group.unreadCounts` of a user in 1,000 groups walks the user's memberships and looks up each group's
            // newest seq and each read mark: with the receive option in the membership index and the seq in an index
            // of its own, a group costs two B-tree searches instead of four (the membership row, the group's
            // primary key index, then its row, then the read mark). The new membership index also serves what the
            // one it replaces served (a user's groups in join order, with the role).
            try db.execute(
                sql: """
                    CREATE INDEX membership_user_receive ON membership(userID, id, groupID, role, receiveOption);
                    DROP INDEX membership_user_cover;
                    CREATE INDEX group_unread ON "group"(id, type, messageSeq, atAllSeq);
                    """
            )
        }
    }
}
