package joinstore

import (
	"errors"
	"strings"
)

// Errors returned by the store; test with errors.Is.
var (
	// ErrLeaseLost: the fencing token is not the process's current lease
	// (it expired and was recovered, was released, or the step was already
	// committed). Nothing was changed.
	ErrLeaseLost = errors.New("lease lost")
	// ErrNotFound: no such session or process.
	ErrNotFound = errors.New("not found")
	// ErrBadChild: a commit named a child iter its lease did not reserve.
	ErrBadChild = errors.New("child iter outside the lease's reservation")
)

// scriptError maps the error replies of the scripts to typed errors.
func scriptError(err error) error {
	if err == nil {
		return nil
	}
	msg := strings.TrimPrefix(err.Error(), "ERR ")
	switch {
	case strings.HasPrefix(msg, "LEASE_LOST"):
		return ErrLeaseLost
	case strings.HasPrefix(msg, "BAD_CHILD"):
		return errors.Join(ErrBadChild, err)
	}
	return err
}
