package logseal

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/envelope"
	"github.com/xgr-sidecar/xgr/evidence"
	"github.com/xgr-sidecar/xgr/grant"
	"github.com/xgr-sidecar/xgr/testenv"
)

// staticKeys is a KeySource of fixed keys (no chain: the benchmark measures
// sealing and storing, the registry's reads are cached in a run anyway).
type staticKeys map[common.Address][]byte

func (k staticKeys) ReadKey(_ context.Context, a common.Address) ([]byte, error) { return k[a], nil }

// BenchmarkRecord is the cost of storing one step's bundle (the demo
// order step's size) with the owner's and an auditor's grant, plaintext
// and encrypted: µs per bundle on this process and the body's bytes.
//
//	go test -run '^$' -bench Record -benchtime 2000x ./logseal
func BenchmarkRecord(b *testing.B) {
	owner, auditor := "0x00000000000000000000000000000000000000aa", "0x00000000000000000000000000000000000000bb"
	ko, _ := envelope.GenerateReadKey()
	ka, _ := envelope.GenerateReadKey()
	keys := staticKeys{common.HexToAddress(owner): ko.Public().Bytes(), common.HexToAddress(auditor): ka.Public().Bytes()}
	for _, enc := range []bool{false, true} {
		b.Run(fmt.Sprint("encrypted=", enc), func(b *testing.B) {
			rdb := testenv.StartRedis(b).Client()
			st, err := evidence.New(rdb, evidence.Config{Grants: grant.New(rdb), Sealer: &Sealer{Keys: keys}})
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			p := evidence.Policy{Encrypt: enc, Grants: []evidence.Reader{{Address: auditor, Rights: grant.Read}}}
			var bytes int
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				it := int64(i + 1)
				bd := &evidence.Bundle{Owner: owner, SessionID: 7, Pid: fmt.Sprintf("7:%d", it), Iter: it, Step: "A1",
					Rule: "0x5fbdb2315678afecb367f032d93f642f64180aa3", Payload: json.RawMessage(`{"Order":"order-17","qty":3,"unitPrice":25,"customer":"c-1"}`),
					APISaves: json.RawMessage(`{"fx":"1.0834"}`), ContractSaves: json.RawMessage(`{"balance":1000000000000000000}`),
					Outcome: evidence.Outcome{Result: evidence.Valid, Output: json.RawMessage(`{"orderId":"order-17","total":75,"orderStatus":"accepted"}`)},
					Receipt: &evidence.Receipt{TxHash: "0x" + fmt.Sprintf("%064x", it), Block: 120, GasUsed: 51234, Status: "success"}, Time: time.Now().UnixMilli()}
				s, err := st.Record(ctx, bd, p, time.Now())
				if err != nil || !s.Created {
					b.Fatal(s, err)
				}
				bytes += s.Bytes
			}
			b.ReportMetric(float64(bytes)/float64(b.N), "body-bytes")
		})
	}
}

// BenchmarkPrepareCommit is what the runtime does for a step's bundle
// before its commit (evidence.Store.PrepareCommit on one Redis server:
// encode, seal when encrypted, queue the grants for the commit's
// transaction; no Redis round trip), plaintext and encrypted for the
// owner and an auditor: the difference is the cost of encryption per
// step.
//
//	go test -run '^$' -bench PrepareCommit -benchtime 2000x ./logseal
func BenchmarkPrepareCommit(b *testing.B) {
	owner, auditor := "0x00000000000000000000000000000000000000aa", "0x00000000000000000000000000000000000000bb"
	ko, _ := envelope.GenerateReadKey()
	ka, _ := envelope.GenerateReadKey()
	keys := staticKeys{common.HexToAddress(owner): ko.Public().Bytes(), common.HexToAddress(auditor): ka.Public().Bytes()}
	rdb := testenv.StartRedis(b).Client()
	for _, enc := range []bool{false, true} {
		b.Run(fmt.Sprint("encrypted=", enc), func(b *testing.B) {
			st, err := evidence.New(rdb, evidence.Config{Grants: grant.New(rdb), Sealer: &Sealer{Keys: keys}})
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			p := evidence.Policy{Encrypt: enc, Grants: []evidence.Reader{{Address: auditor, Rights: grant.Read}}}
			var bytes int
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				it := int64(i + 1)
				bd := &evidence.Bundle{Owner: owner, SessionID: 7, Pid: fmt.Sprintf("7:%d", it), Iter: it, Step: "A1", Executed: it,
					Rule: "0x5fbdb2315678afecb367f032d93f642f64180aa3", Payload: json.RawMessage(`{"Order":"order-17","qty":3,"unitPrice":25,"customer":"c-1"}`),
					APISaves: json.RawMessage(`{"fx":"1.0834"}`), ContractSaves: json.RawMessage(`{"balance":1000000000000000000}`),
					Outcome: evidence.Outcome{Result: evidence.Valid, Output: json.RawMessage(`{"orderId":"order-17","total":75,"orderStatus":"accepted"}`)},
					Receipt: &evidence.Receipt{TxHash: "0x" + fmt.Sprintf("%064x", it), Block: 120, GasUsed: 51234, Status: "success"}, Time: time.Now().UnixMilli()}
				prep, err := st.PrepareCommit(ctx, bd, p, it, time.Now())
				if err != nil || prep.Before == nil {
					b.Fatal(prep, err)
				}
				bytes += prep.Stored.Bytes
			}
			b.ReportMetric(float64(bytes)/float64(b.N), "body-bytes")
		})
	}
}
