package registry

import "testing"

func TestHashIsKeccakOfExactBytes(t *testing.T) {
	// Known keccak256 vectors (Ethereum's keccak, not NIST SHA3-256).
	vectors := map[string]string{
		"":    "0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470",
		"abc": "0x4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45",
	}
	for in, want := range vectors {
		if got := Hash([]byte(in)).Hex(); got != want {
			t.Errorf("Hash(%q) = %s, want %s", in, got, want)
		}
	}
	a := mustParse(t, `{"id":"t","structure":{"A":{"rule":"x"}}}`)
	b := mustParse(t, `{"id":"t", "structure":{"A":{"rule":"x"}}}`)
	if a.Hash == b.Hash {
		t.Errorf("one added space must change the hash")
	}
	if a.Hash != Hash(a.Raw()) {
		t.Errorf("orchestration hash differs from the hash of its raw bytes")
	}
}
