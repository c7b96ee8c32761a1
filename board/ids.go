package board

// stringIDBit marks an id key that is a hash of a non-numeric id rather than the number itself.
const stringIDBit = 1 << 63

// idKey maps an object id to a number that orders ids as rankd does: numeric ids ("17" < "123") by value,
// others by a 63-bit hash after every number. The hash keeps ordering deterministic whatever the delivery
// order; two distinct string ids colliding is a 2⁻⁶³ event we accept.
func idKey(id string) (key uint64, numeric bool) {
	if n, ok := parseNumeric(id); ok {
		return n, true
	}
	// FNV-1a, as hash/fnv computes it, without its allocation.
	h := uint64(14695981039346656037)
	for i := 0; i < len(id); i++ {
		h ^= uint64(id[i])
		h *= 1099511628211
	}
	return h | stringIDBit, false
}

// parseNumeric parses a canonical decimal id: digits only, no leading zero (so "07" stays a string id and
// never aliases "7"), below 2⁶³.
func parseNumeric(s string) (uint64, bool) {
	if len(s) == 0 || len(s) > 18 || (s[0] == '0' && len(s) > 1) {
		return 0, false
	}
	var n uint64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	return n, true
}

// teamOf returns the index of the team with the id. Numeric ids below a bound proportional to the number of
// teams are looked up in a slice: submissions name their team, and a map lookup by string costs more.
func (b *Board) teamOf(id string) (int32, bool) {
	if n, ok := parseNumeric(id); ok && n < uint64(len(b.teamDense)) && b.teamDense[n] != 0 {
		return b.teamDense[n] - 1, true
	}
	t, ok := b.teamIdx[id]
	return t, ok
}

// indexTeam records the index of a new team, also in the dense table when its id is a small number (a
// number too large then stays in the map alone, where teamOf finds it).
func (b *Board) indexTeam(id string, t int32) {
	b.teamIdx[id] = t
	n, ok := parseNumeric(id)
	if !ok || n >= 4*uint64(len(b.teams))+1024 {
		return
	}
	if n >= uint64(len(b.teamDense)) {
		b.teamDense = append(b.teamDense, make([]int32, max(n+1, 2*uint64(len(b.teamDense)))-uint64(len(b.teamDense)))...)
	}
	b.teamDense[n] = t + 1
}
