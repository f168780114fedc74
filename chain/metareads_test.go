package chain

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
)

func TestMetaGroups(t *testing.T) {
	b1, b2 := common.Hash{1}, common.Hash{2}
	req := func(b common.Hash, id string) SnapshotRequest {
		return SnapshotRequest{Registry: common.Address{9}, ID: id, Block: b, HashOnly: true}
	}
	// Two blocks interleaved: one group each, in request order; a request
	// for the whole meta is read on its own.
	whole := req(b1, "w")
	whole.HashOnly = false
	got := metaGroups([]SnapshotRequest{req(b1, "a"), req(b2, "b"), whole, req(b1, "c")})
	if fmt.Sprint(got) != "[[0 3] [1]]" {
		t.Fatalf("groups %v", got)
	}
	// More than MetasPerCall reads of one block: split.
	var many []SnapshotRequest
	for i := range MetasPerCall*2 + 1 {
		many = append(many, req(b1, fmt.Sprint(i)))
	}
	got = metaGroups(many)
	if len(got) != 3 || len(got[0]) != MetasPerCall || len(got[1]) != MetasPerCall || len(got[2]) != 1 || got[2][0] != 2*MetasPerCall {
		t.Fatalf("%d reads in groups of %d, %d, %d", len(many), len(got[0]), len(got[1]), len(got[2]))
	}
	// Long ids: split by their bytes; an id over the bound is read on its own.
	long := strings.Repeat("x", metaIDBytesPerCall/2)
	got = metaGroups([]SnapshotRequest{req(b1, long), req(b1, long), req(b1, long), req(b1, long+long+"x"), req(b1, "a")})
	if fmt.Sprint(got) != "[[0 1] [2 4]]" {
		t.Fatalf("groups by id bytes %v", got)
	}
}

func TestMetaAnswersRejectsOtherAnswers(t *testing.T) {
	if _, err := metaAnswers([]byte("not an answer"), 1); err == nil {
		t.Fatal("garbage decoded as an answer")
	}
	empty := make([]byte, 64)
	empty[31] = 32 // an empty bytes32[]
	if _, err := metaAnswers(empty, 2); err == nil || !strings.Contains(err.Error(), "answered 0 reads, asked 2") {
		t.Fatalf("an answer for too few entries: %v", err)
	}
}
