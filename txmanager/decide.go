package txmanager

import "fmt"

// Finality says when a mined execution is final.
type Finality struct {
	// Mode is "confirmations" (count blocks), "finalized" or "safe" (the
	// node's block tag of that name), as the indexer's finality setting.
	Mode string
	// Confirmations is how many blocks, the receipt's own included, make a
	// receipt final in mode "confirmations": 1 is "mined".
	Confirmations uint64
}

// String is the finality as a log line shows it: "2 confirmations",
// "finalized" or "safe".
func (f Finality) String() string {
	if f.Mode == "confirmations" {
		return fmt.Sprintf("%d confirmations", f.Confirmations)
	}
	return f.Mode
}

// Check reports a finality the manager cannot use.
func (f Finality) Check() error {
	switch f.Mode {
	case "confirmations":
		if f.Confirmations == 0 {
			return fmt.Errorf("finality confirmations: want at least 1 confirmation (1 = mined)")
		}
	case "finalized", "safe":
	default:
		return fmt.Errorf("finality %q: use confirmations, finalized or safe", f.Mode)
	}
	return nil
}

// finalHead is the newest block whose receipts are final, given the chain
// head and, for a tag mode, the tagged block's number. ok is false while no
// block is final yet.
func (f Finality) finalHead(head, tagged uint64) (n uint64, ok bool) {
	if f.Mode != "confirmations" {
		return tagged, true
	}
	if head+1 < f.Confirmations {
		return 0, false
	}
	return head + 1 - f.Confirmations, true
}

// dueForBump reports whether an attempt signed at chain head signedAt is
// still unmined at head after blocks more blocks.
func dueForBump(signedAt, head, blocks uint64) bool {
	return blocks > 0 && head >= signedAt+blocks
}

// gaps lists the nonces in [mined, next) that no live key holds: the node
// has mined every nonce below mined, and every nonce below next was
// assigned, so these can only be closed by a fill.
func gaps(mined, next uint64, held map[uint64]bool) []uint64 {
	var out []uint64
	for n := mined; n < next; n++ {
		if !held[n] {
			out = append(out, n)
		}
	}
	return out
}
