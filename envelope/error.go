package envelope

import (
	"errors"
	"fmt"
)

// Errors the functions wrap.
var (
	// ErrMalformed: the input is not a well-formed XGR1 envelope, XGRK2
	// wrapped key or read key.
	ErrMalformed = errors.New("malformed")
	// ErrTooLarge: the input is larger than the limit the caller allows.
	ErrTooLarge = errors.New("too large")
	// ErrNotOpened: authentication failed. For a wrapped key: another
	// reader's key, another scope or RID, or a changed wrap. For an
	// envelope: another DEK or changed content.
	ErrNotOpened = errors.New("does not open")
)

// FormatError is input that does not parse: which format, which part, what
// is wrong and what is allowed. It never quotes the input.
type FormatError struct {
	// Format is "XGR1", "XGRK2", "read key" or "public key".
	Format string
	// Part names the part: "prefix", "suite", "rid", "body", "payload", …
	Part    string
	Problem string
	Err     error // ErrMalformed or ErrTooLarge
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("%s: %s: %s", e.Format, e.Part, e.Problem)
}

func (e *FormatError) Unwrap() error { return e.Err }

func malformed(format, part, problem string, args ...any) error {
	return &FormatError{Format: format, Part: part, Problem: fmt.Sprintf(problem, args...), Err: ErrMalformed}
}

func tooLarge(format, part, problem string, args ...any) error {
	return &FormatError{Format: format, Part: part, Problem: fmt.Sprintf(problem, args...), Err: ErrTooLarge}
}
