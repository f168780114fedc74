package chain

import (
	"context"
	"fmt"

	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/contracts/metareader"
)

// Limits of one deployless MetaReader call. Each read costs about 15,000
// gas (the registry's getOSTCMeta, at most READ_GAS = 50,000, and 200 gas
// for each of the 32 bytes of its answer, which the EVM charges as code
// deposit), so a full call takes about 1.5 million gas and at most about 6
// million, well under any block gas limit; its answer (64 + 32 bytes per read) stays
// far under the 24,576-byte code size limit, and its data (0.5 kB of code,
// 22 bytes per read plus the ids) under the 49,152-byte init code limit.
const (
	// MetasPerCall is the most reads one call makes.
	MetasPerCall = 100
	// metaIDBytesPerCall bounds the ids' bytes in one call; a longer id is
	// read on its own.
	metaIDBytesPerCall = 16 << 10
)

var (
	metaReaderABI  = metareader.NewMetaReader()
	metaReaderCode = common.FromHex(metareader.MetaReaderMetaData.Bin)
)

// metaGroups splits the requests that ask for the hash only (HashOnly, an
// id of at most metaIDBytesPerCall bytes) into the groups one deployless
// call reads: requests of one block, in request order, at most
// MetasPerCall of them and at most metaIDBytesPerCall of ids. Groups are
// ordered by their first request; each lists indexes into reqs.
func metaGroups(reqs []SnapshotRequest) [][]int {
	var groups [][]int
	open := map[common.Hash]int{} // block -> its group being filled
	bytes := map[common.Hash]int{}
	for i, r := range reqs {
		if !r.HashOnly || len(r.ID) > metaIDBytesPerCall {
			continue
		}
		g, ok := open[r.Block]
		if ok && (len(groups[g]) >= MetasPerCall || bytes[r.Block]+len(r.ID) > metaIDBytesPerCall) {
			ok = false
		}
		if !ok {
			g = len(groups)
			groups = append(groups, nil)
			open[r.Block], bytes[r.Block] = g, 0
		}
		groups[g] = append(groups[g], i)
		bytes[r.Block] += len(r.ID)
	}
	return groups
}

// metaCall is the deployless call that reads the group's hashes: the
// MetaReader creation code with the packed reads as constructor argument
// (per read the registry, the id's length as two bytes, the id), run at
// the group's block.
func metaCall(reqs []SnapshotRequest, group []int) CallAt {
	var packed []byte
	for _, i := range group {
		r := reqs[i]
		packed = append(packed, r.Registry[:]...)
		packed = append(packed, byte(len(r.ID)>>8), byte(len(r.ID)))
		packed = append(packed, r.ID...)
	}
	data := append(append([]byte{}, metaReaderCode...), metaReaderABI.PackConstructor(packed)...)
	return CallAt{Data: data, Block: reqs[group[0]].Block}
}

// metaAnswers decodes a MetaReader answer for n reads: each read's hash,
// zero for a read the call did not answer (it is then read on its own).
// The error is for an answer that is not a MetaReader answer for n reads.
func metaAnswers(out []byte, n int) ([][32]byte, error) {
	hashes, err := metaReaderABI.UnpackRead(out)
	if err != nil {
		return nil, fmt.Errorf("not a MetaReader answer: %w", err)
	}
	if len(hashes) != n {
		return nil, fmt.Errorf("MetaReader answered %d reads, asked %d", len(hashes), n)
	}
	return hashes, nil
}

// readMetasTogether reads the hashes of the HashOnly requests with
// deployless MetaReader calls, one per group of metaGroups, and sets
// out[i].Meta (ID and Hash) and read[i] for every read a call answered. It
// teaches the batcher whether the node takes such calls. The error is for
// the calls as a whole (the batch was not answered); the caller then reads
// every meta on its own.
func readMetasTogether(ctx context.Context, b *Batcher, reqs []SnapshotRequest, out []SnapshotResult, read []bool) error {
	groups := metaGroups(reqs)
	if len(groups) == 0 {
		return nil
	}
	calls := make([]CallAt, len(groups))
	for g, group := range groups {
		calls[g] = metaCall(reqs, group)
	}
	res, err := b.CallsAt(ctx, calls)
	if err != nil {
		return err
	}
	// One answered call shows the node takes calls without `to`; groups is
	// not empty, so it is learned either way.
	worked := false
	for g, group := range groups {
		if res[g].Err != nil {
			continue
		}
		hashes, err := metaAnswers(res[g].Out, len(group))
		if err != nil {
			continue
		}
		worked = true
		for k, i := range group {
			if hashes[k] != ([32]byte{}) {
				out[i].Meta, read[i] = OSTCMeta{ID: reqs[i].ID, Hash: hashes[k]}, true
			}
		}
	}
	b.learnDeployless(worked)
	return nil
}
