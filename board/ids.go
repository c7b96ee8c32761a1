package board

import "hash/fnv"

// stringIDBit marks an id key that is a hash of a non-numeric id rather than the number itself.
const stringIDBit = 1 << 63

// idKey maps an object id to a number that orders ids as rankd does: numeric ids ("17" < "123") by value,
// others by a 63-bit hash after every number. The hash keeps ordering deterministic whatever the delivery
// order; two distinct string ids colliding is a 2⁻⁶³ event we accept.
func idKey(id string) (key uint64, numeric bool) {
	if n, ok := parseNumeric(id); ok {
		return n, true
	}
	h := fnv.New64a()
	h.Write([]byte(id))
	return h.Sum64() | stringIDBit, false
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
