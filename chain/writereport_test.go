package chain_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/testenv"
)

func TestRecord(t *testing.T) {
	text := []byte(`{"a":1}`)
	if r := chain.Record(crypto.Keccak256Hash(text), text); !r.Match || r.LocalHash != r.Hash {
		t.Errorf("same bytes: %+v", r)
	}
	if r := chain.Record(common.Hash{1}, text); r.Match || r.LocalHash != crypto.Keccak256Hash(text) {
		t.Errorf("other hash: %+v", r)
	}
}

// field is the value of the output line named name.
func field(t *testing.T, fields []chain.Field, name string) string {
	t.Helper()
	for _, f := range fields {
		if f.Name == name {
			return f.Value
		}
	}
	t.Fatalf("no field %q in %+v", name, fields)
	return ""
}

// The reports of registry writes and reads check the recorded hash against
// the text's and keep the JSON shape of the CLI's --json output.
func TestRegistryReports(t *testing.T) {
	a := testenv.StartAnvil(t)
	ctx := context.Background()
	doc := []byte(`{"v":1}`)
	init := chain.RegistryInit{IDs: []string{"x"}, JSONs: [][]byte{doc}, Executors: []common.Address{a.Address(1)}}
	s := testenv.Sender(t, a, 0)
	g, r, err := chain.DeployRegistry(ctx, s, init)
	if err != nil {
		t.Fatal(err)
	}
	dep := g.DeployReport(r, s.From(), init)
	if !dep.Match() || len(dep.OSTC) != 1 || dep.OSTC[0].ID != "x" || dep.OSTC[0].Version != 1 {
		t.Fatalf("deploy report %+v", dep)
	}
	if got := field(t, dep.Fields(), "  hash (local)"); got != crypto.Keccak256Hash(doc).Hex()+"  match" {
		t.Errorf("deploy local hash line %q", got)
	}
	if field(t, dep.Fields(), "executor") != a.Address(1).Hex() {
		t.Errorf("executor line: %+v", dep.Fields())
	}
	j, _ := json.Marshal(dep)
	if !strings.Contains(string(j), `"ostc":[{"id":"x","version":1,"hash":"`) || !strings.Contains(string(j), `"match":true}],"executors":[`) {
		t.Errorf("deploy JSON %s", j)
	}

	doc2 := []byte(`{"v":2}`)
	w, err := g.Put(ctx, s, "x", doc2)
	if err != nil {
		t.Fatal(err)
	}
	put := w.Report(g.Address, doc2)
	if !put.Match || put.Version != 2 || put.ID != "x" || field(t, put.Fields(), "version") != "2" {
		t.Errorf("put report %+v", put)
	}
	if bad := w.Report(g.Address, doc); bad.Match || !strings.HasSuffix(field(t, bad.Fields(), "hash (local)"), "MISMATCH") {
		t.Errorf("put report of other bytes %+v", bad)
	}

	m, err := g.CheckMeta(ctx, "x", "f.json", doc)
	if err != nil || !m.TextMatch() || m.Match || m.Version != 2 || m.FileHash == nil {
		t.Fatalf("CheckMeta with another file = %+v, %v", m, err)
	}
	if got := field(t, m.Fields(), "hash (f.json)"); !strings.HasSuffix(got, "MISMATCH") {
		t.Errorf("file hash line %q", got)
	}
	if m, err = g.CheckMeta(ctx, "x", "", nil); err != nil || !m.Match || m.FileHash != nil {
		t.Errorf("CheckMeta without a file = %+v, %v", m, err)
	}

	metas, err := g.Metas(ctx)
	if err != nil || len(metas) != 1 || metas[0].Version != 2 {
		t.Fatalf("Metas = %+v, %v", metas, err)
	}
	if f := chain.MetaFields(metas); len(f) != 1 || f[0].Name != "x" || !strings.HasPrefix(f[0].Value, "v2  "+crypto.Keccak256Hash(doc2).Hex()) {
		t.Errorf("meta lines %+v", f)
	}

	d, err := g.Delete(ctx, s, "x")
	if err != nil {
		t.Fatal(err)
	}
	del := d.Report(g.Address)
	if del.Deleted != "x" || del.PreviousVersion != 2 || field(t, del.Fields(), "previous hash") != crypto.Keccak256Hash(doc2).Hex() {
		t.Errorf("delete report %+v", del)
	}
	if metas, err := g.Metas(ctx); err != nil || len(metas) != 0 || metas == nil {
		t.Errorf("Metas of an empty registry = %#v, %v", metas, err)
	}
}

func TestRuleReports(t *testing.T) {
	sim := testenv.StartSim(t)
	text := `{"payload": {}}`
	r, w := testenv.DeployXRC137(t, sim, text)
	rep := w.Report(r.Address, []byte(text))
	if !rep.Match || rep.Version != 1 || rep.Encrypted || field(t, rep.Fields(), "rule") != r.Address.Hex() {
		t.Errorf("deploy report %+v", rep)
	}
	info, err := r.Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	v := info.View()
	if !v.Match() || field(t, v.Fields(), "executors") != "none" || field(t, v.Fields(), "bytes") != "15" {
		t.Errorf("view %+v", v.Fields())
	}
	j, _ := json.Marshal(v)
	if !strings.Contains(string(j), `"rule":"{\"payload\": {}}"`) || !strings.Contains(string(j), `"textHash":"`+v.Hash.Hex()+`"`) {
		t.Errorf("view JSON %s", j)
	}
}
