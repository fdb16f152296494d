import GuildJSON

// Hand-written writers of the wire types on hot paths (long group and member lists); each writes what
// `JSONEncoder` writes for the type, keys sorted.

extension GroupInfo: JSONWritable {
    public func writeJSON(to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "{"))
        JSONText.appendKey("createdAt", to: &bytes)
        JSONText.appendInteger(self.createdAt, to: &bytes)
        bytes.append(UInt8(ascii: ","))
        JSONText.appendKey("groupID", to: &bytes)
        JSONText.appendString(self.groupID, to: &bytes)
        bytes.append(UInt8(ascii: ","))
        JSONText.appendKey("memberCount", to: &bytes)
        JSONText.appendInteger(self.memberCount, to: &bytes)
        bytes.append(UInt8(ascii: ","))
        JSONText.appendKey("modifiedAt", to: &bytes)
        JSONText.appendInteger(self.modifiedAt, to: &bytes)
        bytes.append(UInt8(ascii: ","))
        JSONText.appendKey("name", to: &bytes)
        JSONText.appendString(self.name, to: &bytes)
        bytes.append(UInt8(ascii: ","))
        JSONText.appendKey("owner", to: &bytes)
        if let owner = self.owner { JSONText.appendString(owner, to: &bytes) } else { bytes.append(contentsOf: "null".utf8) }
        bytes.append(UInt8(ascii: ","))
        JSONText.appendKey("type", to: &bytes)
        JSONText.appendString(self.type, to: &bytes)
        bytes.append(UInt8(ascii: "}"))
    }
}

extension GroupMember: JSONWritable {
    public func writeJSON(to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "{"))
        JSONText.appendKey("joinedAt", to: &bytes)
        JSONText.appendInteger(self.joinedAt, to: &bytes)
        bytes.append(UInt8(ascii: ","))
        JSONText.appendKey("role", to: &bytes)
        JSONText.appendString(self.role, to: &bytes)
        bytes.append(UInt8(ascii: ","))
        JSONText.appendKey("userID", to: &bytes)
        JSONText.appendString(self.userID, to: &bytes)
        bytes.append(UInt8(ascii: "}"))
    }
}

extension UserMethods.MemberOfGroups.Result: JSONWritable {
    public func writeJSON(to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "{"))
        JSONText.appendKey("groups", to: &bytes)
        if let encoded = self.encodedGroups {
            bytes.append(contentsOf: encoded)
        } else {
            JSONText.appendArray(self.groups, to: &bytes)
        }
        bytes.append(UInt8(ascii: "}"))
    }
}

extension GroupMethods.Members.Result: JSONWritable {
    public func writeJSON(to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "{"))
        JSONText.appendKey("members", to: &bytes)
        JSONText.appendArray(self.members, to: &bytes)
        bytes.append(UInt8(ascii: ","))
        JSONText.appendKey("nextCursor", to: &bytes)
        JSONText.appendInteger(self.nextCursor, to: &bytes)
        bytes.append(UInt8(ascii: "}"))
    }
}
