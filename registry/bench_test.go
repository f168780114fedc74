package registry

import (
	"encoding/json"
	"fmt"
	"testing"
)

// bigOSTC builds a 128-step orchestration shaped like real ones: chains,
// fan-outs of 4 with k-of-n joins, backloops and some unknown fields.
func bigOSTC(tb testing.TB) []byte {
	const n = MaxSteps
	id := func(i int) string { return fmt.Sprintf("Step_%03d", i%n) }
	structure := map[string]any{}
	for i := 0; i < n; i++ {
		step := map[string]any{"rule": fmt.Sprintf("0x%040x", i+1), "meta": map[string]any{"label": "step " + id(i)}}
		switch i % 4 {
		case 0: // fan-out with a join
			step["onValid"] = map[string]any{
				"spawns": []string{id(i + 1), id(i + 2), id(i + 3)},
				"join": map[string]any{
					"joinid": id(i + 4), "mode": map[string]int{"kofn": 2}, "waitonjoin": "kill",
					"from": []map[string]string{{"node": id(i + 1), "when": "valid"}, {"node": id(i + 2)}, {"node": id(i + 3), "when": "any"}},
				},
			}
			step["onInvalid"] = map[string]any{"spawns": []string{id(i)}}
		case 1, 2:
			step["onValid"] = map[string]any{}
			step["onInvalid"] = map[string]any{"spawns": []string{id(i)}}
		}
		structure[id(i)] = step
	}
	raw, err := json.MarshalIndent(map[string]any{"id": "bench", "structure": structure}, "", "  ")
	if err != nil {
		tb.Fatal(err)
	}
	return raw
}

func TestBigOSTCIsValid(t *testing.T) {
	raw := bigOSTC(t)
	o, err := Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Steps) != MaxSteps || len(raw) > MaxOSTCBytes {
		t.Fatalf("%d steps, %d bytes", len(o.Steps), len(raw))
	}
	checkInvariants(t, o)
}

// BenchmarkParse128 is parse + validate + hash + closure of a 128-step OSTC.
func BenchmarkParse128(b *testing.B) {
	raw := bigOSTC(b)
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(raw); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCanReach(b *testing.B) {
	o, err := Parse(bigOSTC(b))
	if err != nil {
		b.Fatal(err)
	}
	n := len(o.Steps)
	for i := 0; b.Loop(); i++ {
		o.CanReachIndex(i%n, (i*7)%n)
	}
}
