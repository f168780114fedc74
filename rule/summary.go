package rule

import (
	"fmt"

	"github.com/xgr-sidecar/xgr/internal/jsondoc"
)

// Summarize parses a rule document and says what it holds (inputs, API
// calls, contract reads, rules, hash), as `xgr rule validate` reports it;
// a rejected document is Parse's error.
func Summarize(raw []byte) (jsondoc.Summary, error) {
	d, err := Parse(raw)
	if err != nil {
		return jsondoc.Summary{}, err
	}
	return jsondoc.Summary{
		Text: fmt.Sprintf("%d inputs, %d apiCalls, %d contractReads, %d rules, hash %s",
			len(d.Payload), len(d.APICalls), len(d.ContractReads), len(d.Rules), d.Hash.Hex()),
		Fields: map[string]any{"hash": d.Hash.Hex(), "inputs": len(d.Payload), "apiCalls": len(d.APICalls),
			"contractReads": len(d.ContractReads), "rules": len(d.Rules)},
		Warnings: d.Warnings,
	}, nil
}
