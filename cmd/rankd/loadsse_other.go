//go:build !linux

package main

import "context"

// followStreams reads the load's streams (see sseFollow).
func followStreams(ctx context.Context, f sseFollow) { followConns(ctx, f) }
