import GuildJSON

// Hand-written writers of the message wire types on hot paths (a user's unread counts in many groups); each
// writes what `JSONEncoder` writes for the type, keys sorted.

extension GroupMethods.UnreadCount: JSONWritable {
    public func writeJSON(to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "{"))
        JSONText.appendKey("badgeOnly", to: &bytes)
        bytes.append(contentsOf: (self.badgeOnly ? "true" : "false").utf8)
        bytes.append(UInt8(ascii: ","))
        JSONText.appendKey("groupID", to: &bytes)
        JSONText.appendString(self.groupID, to: &bytes)
        bytes.append(UInt8(ascii: ","))
        JSONText.appendKey("mentioned", to: &bytes)
        bytes.append(contentsOf: (self.mentioned ? "true" : "false").utf8)
        bytes.append(UInt8(ascii: ","))
        JSONText.appendKey("readSeq", to: &bytes)
        JSONText.appendInteger(self.readSeq, to: &bytes)
        bytes.append(UInt8(ascii: ","))
        JSONText.appendKey("unread", to: &bytes)
        JSONText.appendInteger(self.unread, to: &bytes)
        bytes.append(UInt8(ascii: "}"))
    }
}

extension GroupMethods.UnreadCounts.Result: JSONWritable {
    public func writeJSON(to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "{"))
        JSONText.appendKey("groups", to: &bytes)
        JSONText.appendArray(self.groups, to: &bytes)
        bytes.append(UInt8(ascii: ","))
        JSONText.appendKey("total", to: &bytes)
        JSONText.appendInteger(self.total, to: &bytes)
        bytes.append(UInt8(ascii: "}"))
    }
}
