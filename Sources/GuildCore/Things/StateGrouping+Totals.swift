import GuildJSON

extension StateGrouping {
    /// Each group's totals of a thing's states, by field: for ``StateRollup/statesField`` (the states' count) and
    /// each of `fields`. A group's totals are the merge of the rollups of its whole minutes, read in one query
    /// over the range, and of the states of the minutes it shares with the range's edges or with another group
    /// (``plan``), or whose rollups are stale. A field without values in a group is missing from it.
    /// Without `rollups` (they are not kept), every group is read from the states.
    public func totals(
        thingID: String,
        fields: Set<String>,
        in records: any ThingRecords,
        rollups: Bool = true
    ) throws -> [[String: FieldTotals]] {
        var plan = rollups ? self.plan : StateReadPlan(wholeMinutes: nil, lead: 0, splitMinutes: [], stateRanges: [self.from...self.to])
        if let minutes = plan.wholeMinutes {
            plan = plan.readingFromStates(try records.staleRollupMinutes(thingID: thingID, minutes: minutes))
        }
        let fields = fields.filter(StateRollup.isRolledUp).sorted()
        var groups = [[String: FieldTotals]](repeating: [:], count: self.count)
        if let minutes = plan.wholeMinutes {
            let rows = try records.stateRollupTotals(
                thingID: thingID,
                fields: [StateRollup.statesField] + fields,
                minutes: minutes,
                excluding: plan.splitMinutes,
                lead: plan.lead,
                interval: self.interval
            )
            for row in rows where groups.indices.contains(row.group) {
                groups[row.group][row.field, default: FieldTotals()].merge(row.totals)
            }
        }
        for range in plan.stateRanges {
            for state in try records.statesByTime(thingID: thingID, from: range.lowerBound, to: range.upperBound) {
                guard let group = self.group(of: state.timestamp) else { continue }
                groups[group][StateRollup.statesField, default: FieldTotals()].count += 1
                for field in fields {
                    guard let value = state.state[field] else { continue }
                    groups[group][field, default: FieldTotals()].add(value)
                }
            }
        }
        return groups
    }
}
