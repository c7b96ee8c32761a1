package board

// IDKey exposes idKey to the external tests.
func IDKey(id string) uint64 {
	k, _ := idKey(id)
	return k
}

// AlwaysBulk makes b reindex the rows that move in an event as a whole however few they are, so that tests
// compare it with the row-by-row way.
func AlwaysBulk(b *Board) { b.alwaysBulk = true }
