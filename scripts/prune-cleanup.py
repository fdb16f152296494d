#!/usr/bin/env python3
# What pruning costs an area's readers table per batch of 1,000 events: the old clean-up, whose fallback
# depended on the row ("seq < coalesce((SELECT min(seq) FROM event), seq + 1)", a scan of the whole table),
# against the one since 3fdb2f0 (a constant fallback, a range of the seq index). A table of N rows as
# guildd's thing_event_reader (WITHOUT ROWID, in seq order); medians of 11 batches. Usage: scripts/prune-cleanup.py [N]
import os, sqlite3, statistics, sys, tempfile, time
N = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
directory = tempfile.TemporaryDirectory(prefix="guild-prune-")
db = sqlite3.connect(os.path.join(directory.name, "prune.db"), isolation_level=None)
db.execute("PRAGMA journal_mode=WAL"); db.execute("PRAGMA synchronous=NORMAL")
db.execute("CREATE TABLE event (seq INTEGER PRIMARY KEY, body BLOB)")
db.execute("CREATE TABLE r (seq INTEGER NOT NULL, principal TEXT NOT NULL, PRIMARY KEY (seq, principal)) WITHOUT ROWID")
db.execute("BEGIN")
db.executemany("INSERT INTO event VALUES (?, x'00')", ((i,) for i in range(1, N + 1)))
db.executemany("INSERT INTO r VALUES (?, ?)", ((i, "u%d" % (i % 997)) for i in range(1, N + 1)))
db.execute("COMMIT")
old = "DELETE FROM r WHERE seq < coalesce((SELECT min(seq) FROM event), seq + 1)"
new = "DELETE FROM r WHERE seq < coalesce((SELECT min(seq) FROM event), 9223372036854775807)"
def run(sql):
    times = []
    for _ in range(11):
        db.execute("BEGIN")
        db.execute("DELETE FROM event WHERE seq <= (SELECT min(seq) FROM event) + 999")
        t = time.perf_counter(); db.execute(sql); times.append(time.perf_counter() - t)
        db.execute("COMMIT")
    return statistics.median(times) * 1000
for label, sql in [("old", old), ("new", new), ("old", old), ("new", new)]:
    print(label, "%.2f ms per batch" % run(sql), flush=True)
db.close()
directory.cleanup()
