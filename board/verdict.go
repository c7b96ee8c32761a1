package board

import "rankd"

// Verdict returns what view v may see of a submission's verdict: the judgement type id of its latest
// judgement and its score, or "" when it has none or v must not see it (the public view during the freeze;
// a team view sees its own). ok is false for an unknown submission or one v must not list at all (a hidden
// or banned team's in the public view).
func (b *Board) Verdict(v rankd.View, submissionID string) (judgementTypeID string, score float64, ok bool) {
	ci, found := b.locate(submissionID)
	if !found {
		return "", 0, false
	}
	t := int32(ci / len(b.problems))
	own := v.Kind == rankd.ViewTeam && v.TeamID == b.teams[t].info.ID
	if v.Kind != rankd.ViewJury && !own && !b.ranked(t) {
		return "", 0, false
	}
	key, _ := idKey(submissionID)
	r := b.find(ci, key)
	if r == 0 {
		return "", 0, false
	}
	s := b.sub(r)
	if s.jtype == 0 {
		return "", 0, true
	}
	if v.Kind != rankd.ViewJury && !own {
		if s.time >= b.hideFrom(public, ci) {
			return "", 0, true // made during the freeze (or in a contest hidden until its end)
		}
	}
	return b.jtypes[s.jtype].info.ID, s.score, true
}
