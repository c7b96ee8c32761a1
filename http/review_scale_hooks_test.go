package http

import (
	"io"

	"rankd/export"
)

// WrapExportWriter puts wrap around the writer of an export format, until the returned function puts it back.
func WrapExportWriter(format string, wrap func(func(io.Writer, *export.Board) error) func(io.Writer, *export.Board) error) (restore func()) {
	f := exportFormats[format]
	old := f.write
	f.write = wrap(old)
	exportFormats[format] = f
	return func() {
		f.write = old
		exportFormats[format] = f
	}
}

// FinalStale is how long after its last check a version of final standings is served.
const FinalStale = finalStale
