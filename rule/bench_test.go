package rule

import (
	"context"
	"testing"
)

// BenchmarkIterationOfPi measures one step of the IterationOfPi rule
// (three outcome expressions, no I/O); each iteration feeds the previous
// output back as in the 1,000-step loop test.
func BenchmarkIterationOfPi(b *testing.B) {
	d := mustParse(b, repairedPi(b))
	payload := map[string]any{"Iter": int64(0), "S": 0.0, "Pi": 0.0}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, err := Evaluate(ctx, d, payload, Sources{})
		if err != nil || !r.Valid {
			b.Fatalf("%v %+v", err, r)
		}
		payload = r.Output
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "evals/s")
}

// BenchmarkQuorum measures one step of the three-source quorum rule with
// the API answers stubbed: three JSON decodes, six extracts, three rules
// (quorum, consensus twice) and ten outcome values.
func BenchmarkQuorum(b *testing.B) {
	d := mustParse(b, readFixture(b, quorumFixture))
	src := Sources{API: quorumStub(100000, 100500, 120000)}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, err := Evaluate(ctx, d, nil, src)
		if err != nil || !r.Valid {
			b.Fatalf("%v %+v", err, r)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "evals/s")
}

// BenchmarkParseQuorum measures parsing the quorum rule with its programs
// already cached (what an executor pays per step without a document cache).
func BenchmarkParseQuorum(b *testing.B) {
	raw := readFixture(b, quorumFixture)
	mustParse(b, raw)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Parse(raw); err != nil {
			b.Fatal(err)
		}
	}
}
