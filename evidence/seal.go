package evidence

import (
	"context"
	"errors"

	"github.com/xgr-sidecar/xgr/grant"
)

// Sealer encrypts a bundle for its readers (package envelope implements
// it, with the readers' registered read keys). Its errors must not contain
// the plaintext.
type Sealer interface {
	// Seal encrypts plaintext under a fresh data key as an XGR1 envelope
	// (XGR1.AESGCM256.<rid>.<base64>) and wraps the key for each reader
	// (XGRK2, scope 2, the envelope's RID in the HKDF info).
	Seal(ctx context.Context, plaintext []byte, readers []string) (*Sealed, error)
}

// Sealed is an encrypted bundle.
type Sealed struct {
	RID  grant.RID
	Blob string
	// Wrapped is each reader's wrapped data key (XGRK2…), by address.
	Wrapped map[string]string
	// Missing are readers without a registered read key: no key was
	// wrapped for them.
	Missing []string
}

// ErrSeal marks a bundle that could not be encrypted: nothing was stored.
var ErrSeal = errors.New("evidence: the bundle could not be encrypted; nothing was stored")
