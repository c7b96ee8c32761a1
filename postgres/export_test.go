package postgres

import (
	"context"
	"time"
)

// OpenWithin is Open bounded by timeout rather than OpenTimeout, and whose Close waits closeWait at each step,
// so that tests of a database that does not answer take a moment rather than OpenTimeout.
func OpenWithin(ctx context.Context, url string, timeout, closeWait time.Duration) (*DB, error) {
	db, err := open(ctx, url, timeout)
	if db != nil {
		db.closeWait = closeWait
	}
	return db, err
}
