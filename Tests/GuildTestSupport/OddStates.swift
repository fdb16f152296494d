/// Thing states that test what a store does with awkward JSON (the rollup backfills of SQLite's `things-8` and
/// PostgreSQL's version 26 read states already stored): names with quotes, accents, a NUL (no rollup) or U+FFFD,
/// values with NULs and escaped backslashes, big and negative numbers, times before 1970. Each is its stored
/// JSON text and its timestamp.
public enum OddStates {
    public static let all: [(text: String, timestamp: Int64)] = [
        (#"{"t":3,"on":true,"s":"x"}"#, 1_000),
        (#"{"t":7.5,"n":null,"q\"uote":1,"é":2}"#, 2_000),
        (#"{"t":2.0,"a\u0000b":1,"":5,"o":{"a":1},"z":"a\\u0000b"}"#, 61_000),
        (#"{"t":-4,"w\ufffd":1}"#, -1),
        (#"{"t":0.25,"v":"x\u0000y"}"#, 59_999),
        (#"{"t":12345678901,"big":1e300,"arr":[1,2]}"#, -60_001),
        (#"{}"#, 5),
    ]
}
