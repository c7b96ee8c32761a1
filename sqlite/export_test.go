package sqlite

// SetKeyMask masks the hashes the index knows names by, so that names collide, until restore is called.
func SetKeyMask(mask uint64) (restore func()) {
	old := keyMask
	keyMask = mask
	return func() { keyMask = old }
}
