import GuildJSON

// Hand-written writers of the message wire types on hot paths (a user's unread counts in many groups); each
// writes what `JSONEncoder` writes for the type, keys sorted.

extension GroupMethods.UnreadCount: JSONWritable {
    public func writeJSON(to bytes: inout [UInt8]) {
        // Keys with their punctuation in one append each: a user's counts in 1,000 groups are 1,000 of these.
        JSONText.appendRaw(#"{"badgeOnly":"#, to: &bytes)
        JSONText.appendBool(self.badgeOnly, to: &bytes)
        JSONText.appendRaw(#","groupID":"#, to: &bytes)
        JSONText.appendString(self.groupID, to: &bytes)
        JSONText.appendRaw(#","mentioned":"#, to: &bytes)
        JSONText.appendBool(self.mentioned, to: &bytes)
        JSONText.appendRaw(#","readSeq":"#, to: &bytes)
        JSONText.appendInteger(self.readSeq, to: &bytes)
        JSONText.appendRaw(#","unread":"#, to: &bytes)
        JSONText.appendInteger(self.unread, to: &bytes)
        bytes.append(UInt8(ascii: "}"))
    }
}

extension GroupMethods.UnreadCounts.Result: JSONWritable {
    public func writeJSON(to bytes: inout [UInt8]) {
        // Room for every count at once (about 90 bytes each), not a dozen regrowths of a 100 KB reply.
        bytes.reserveCapacity(bytes.count + 32 + self.groups.count * 96)
        bytes.append(UInt8(ascii: "{"))
        JSONText.appendKey("groups", to: &bytes)
        JSONText.appendArray(self.groups, to: &bytes)
        bytes.append(UInt8(ascii: ","))
        JSONText.appendKey("total", to: &bytes)
        JSONText.appendInteger(self.total, to: &bytes)
        bytes.append(UInt8(ascii: "}"))
    }
}
