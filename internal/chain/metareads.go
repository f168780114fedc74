package chain

import (
	"context"
	"fmt"

	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/contracts/metareader"
)

// Limits of one deployless MetaReader call. Each entry costs about 40,000
// gas (the registry's getOSTCMeta, and 200 gas for each of the 128 bytes of
// its answer, which the EVM charges as code deposit), so a full call takes
// about 4 million gas, well under any block gas limit; its answer (64 + 128
// bytes per entry, about 12.9 kB) stays under the 24,576-byte code size
// limit, and its data (about 1.4 kB of code, 128 bytes per entry plus the
// ids) under the 49,152-byte init code limit.
const (
	// MetasPerCall is the most entries one call reads.
	MetasPerCall = 100
	// metaIDBytesPerCall bounds the ids' bytes in one call.
	metaIDBytesPerCall = 16 << 10
)

var (
	metaReaderABI  = metareader.NewMetaReader()
	metaReaderCode = common.FromHex(metareader.MetaReaderMetaData.Bin)
)

// metaGroups splits the requests into the groups one deployless call
// reads: requests of one block, in request order, at most MetasPerCall of
// them and at most metaIDBytesPerCall of ids (an id longer than that goes
// alone). Groups are ordered by their first request; each lists indexes
// into reqs.
func metaGroups(reqs []SnapshotRequest) [][]int {
	var groups [][]int
	open := map[common.Hash]int{} // block -> its group being filled
	bytes := map[common.Hash]int{}
	for i, r := range reqs {
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

// metaCall is the deployless call that reads the group's metas: the
// MetaReader creation code with the registries and ids as constructor
// arguments, run at the group's block.
func metaCall(reqs []SnapshotRequest, group []int) CallAt {
	regs := make([]common.Address, len(group))
	ids := make([]string, len(group))
	for k, i := range group {
		regs[k], ids[k] = reqs[i].Registry, reqs[i].ID
	}
	data := append(append([]byte{}, metaReaderCode...), metaReaderABI.PackConstructor(regs, ids)...)
	return CallAt{Data: data, Block: reqs[group[0]].Block}
}

// metaAnswers decodes a MetaReader answer for n entries: each entry's
// getOSTCMeta return data, or nil for an entry the call did not answer
// (it is then read on its own). The error is for an answer that is not a
// MetaReader answer for n entries.
func metaAnswers(out []byte, n int) ([][]byte, error) {
	answers, err := metaReaderABI.UnpackRead(out)
	if err != nil {
		return nil, fmt.Errorf("not a MetaReader answer: %w", err)
	}
	if len(answers) != n {
		return nil, fmt.Errorf("MetaReader answered %d entries, asked %d", len(answers), n)
	}
	data := make([][]byte, n)
	for i, a := range answers {
		if a.Ok {
			data[i] = append(append(append(make([]byte, 0, 96), a.Words[0][:]...), a.Words[1][:]...), a.Words[2][:]...)
		}
	}
	return data, nil
}

// readMetasTogether reads the requests' metas with deployless MetaReader
// calls, one per group of metaGroups, and sets out[i].Meta and read[i] for
// every entry a call answered with a meta that decodes. It teaches the
// batcher whether the node takes such calls. The error is for the calls
// as a whole (the batch was not answered); the caller then reads every
// meta on its own.
func readMetasTogether(ctx context.Context, b *Batcher, reqs []SnapshotRequest, out []SnapshotResult, read []bool) error {
	groups := metaGroups(reqs)
	calls := make([]CallAt, len(groups))
	for g, group := range groups {
		calls[g] = metaCall(reqs, group)
	}
	res, err := b.CallsAt(ctx, calls)
	if err != nil {
		return err
	}
	worked, failed := false, false
	for g, group := range groups {
		if res[g].Err != nil {
			failed = true
			continue
		}
		data, err := metaAnswers(res[g].Out, len(group))
		if err != nil {
			failed = true
			continue
		}
		worked = true
		for k, i := range group {
			if data[k] == nil {
				continue
			}
			if m, err := decodeMeta(reqs[i].ID, data[k]); err == nil {
				out[i].Meta, read[i] = m, true
			}
		}
	}
	if worked || failed {
		b.learnDeployless(worked)
	}
	return nil
}
