package chain

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// Field is one labelled line of command output.
type Field struct {
	Name  string
	Value string
}

// WriteFields prints one "name  value" line per field with the values
// aligned in one column.
func WriteFields(w io.Writer, fields []Field) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, f := range fields {
		fmt.Fprintf(tw, "%s\t%s\n", f.Name, f.Value)
	}
	return tw.Flush()
}

// TxSummary is what xgr reports about a mined transaction.
type TxSummary struct {
	TxHash   common.Hash     `json:"txHash"`
	Block    uint64          `json:"block"`
	GasUsed  uint64          `json:"gasUsed"`
	Contract *common.Address `json:"contract,omitempty"`
}

// Summarize extracts the reported fields of a receipt.
func Summarize(r *types.Receipt) TxSummary {
	s := TxSummary{TxHash: r.TxHash, Block: r.BlockNumber.Uint64(), GasUsed: r.GasUsed}
	if r.ContractAddress != (common.Address{}) {
		addr := r.ContractAddress
		s.Contract = &addr
	}
	return s
}

// Fields lists the summary as output lines: tx, block and gas used.
func (s TxSummary) Fields() []Field {
	return []Field{
		{"tx", s.TxHash.Hex()},
		{"block", fmt.Sprint(s.Block)},
		{"gas used", fmt.Sprint(s.GasUsed)},
	}
}

// HashFields reports a hash stored on chain next to the one computed here
// from the same bytes, and whether they agree.
func HashFields(onChain, local common.Hash, localWhat string) []Field {
	verdict := "match"
	if onChain != local {
		verdict = "MISMATCH"
	}
	return []Field{
		{"hash (on chain)", onChain.Hex()},
		{"hash (" + localWhat + ")", local.Hex() + "  " + verdict},
	}
}
