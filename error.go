package rankd

import (
	"errors"
	"fmt"
)

// Error codes. They are stable strings: clients and tests match on them, and only package http maps them to
// statuses.
const (
	ECONFLICT       = "conflict"        // a redefinition that contradicts what is stored
	EINTERNAL       = "internal"        // a fault of ours; the message never says more
	EINVALID        = "invalid"         // malformed input
	ENOTFOUND       = "not_found"       // unknown contest or object
	EUNPROCESSABLE  = "unprocessable"   // well formed, but refers to an unknown team, problem, ...
	EUNAUTHORIZED   = "unauthorized"    // no or bad credentials
	EFORBIDDEN      = "forbidden"       // credentials without the right
	ETOOLARGE       = "too_large"       // request or value beyond a limit
	EUNSUPPORTED    = "unsupported"     // a request body in an encoding or format not read here
	EUNAVAILABLE    = "unavailable"     // a dependency is down; retry later
	ENOTIMPLEMENTED = "not_implemented" // a feature this configuration does not offer
)

// Error is the error users see: a code and a message safe to show. Err keeps the cause for logs.
type Error struct {
	Code    string
	Message string
	Err     error
}

// Error returns the message, with the cause when there is one.
func (e *Error) Error() string {
	if e.Err != nil {
		return e.Message + ": " + e.Err.Error()
	}
	return e.Message
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error with the code and a formatted message. A %w verb wraps its operand as the cause
// but, like any argument, also shows in the message, so only wrap errors that are fit to show.
func Errorf(code string, format string, args ...any) *Error {
	err := fmt.Errorf(format, args...)
	return &Error{Code: code, Message: err.Error(), Err: errors.Unwrap(err)}
}

// ErrorCode returns the code of the first *Error in err's chain, EINTERNAL for other errors, "" for nil.
func ErrorCode(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return EINTERNAL
}

// ErrorMessage returns the message of the first *Error in err's chain, and a generic message for other
// errors so that internals never reach users.
func ErrorMessage(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Message
	}
	return "internal error"
}
