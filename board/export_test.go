package board

// IDKey exposes idKey to the external tests.
func IDKey(id string) uint64 {
	k, _ := idKey(id)
	return k
}
