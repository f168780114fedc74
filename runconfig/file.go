// Package runconfig reads the operator's YAML config file of xgr run as a
// whole: its quotas:, executions: and addresses: sections and the index's
// settings (registries, finality, triggers …) around them. Every command
// that takes --config reads the file through Parse, so one file is
// accepted (or refused, with file:line:column) by all of them alike.
package runconfig

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/xgr-sidecar/xgr/execution"
	"github.com/xgr-sidecar/xgr/indexer"
	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/rulesource"
)

// File is a parsed config file. A missing file (Read with path "") is the
// zero config: no quotas, executions off, no address bindings and the
// index's defaults (indexer.DefaultConfig).
type File struct {
	// Path names the file in errors ("" when there is none).
	Path string
	// Quotas is the quotas: section (joinstore.ParseQuotas).
	Quotas joinstore.Quotas
	// Executions is the executions: section (execution.ParseConfig),
	// before any --executions flag.
	Executions execution.Config
	// Addresses is the addresses: section (rulesource.ParseAddresses);
	// nil when the file has none.
	Addresses rulesource.Addresses
	// Index is the rest of the file: the index's registries, finality,
	// window and triggers (indexer.ParseConfig).
	Index *indexer.Config
	// SetsFinality is true when the file names a finality rule
	// (finality:) rather than taking the default.
	SetsFinality bool
}

// Finality is the trigger finality rule the file sets (the default
// without one).
func (f *File) Finality() indexer.Finality { return indexer.FinalityOf(f.Index) }

// Read reads and parses the config file at path; path "" is no file.
func Read(path string) (*File, error) {
	if path == "" {
		return Parse("", nil)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--config: %w", err)
	}
	return Parse(path, raw)
}

// Parse parses raw, the text of the config file path. Each section goes
// to its own parser, which blanks it (line numbers kept) for the next;
// the index's parser reads what is left and refuses any setting that no
// section knows, naming file:line:column. A YAML syntax error is reported
// by the index's parser with its position.
func Parse(path string, raw []byte) (*File, error) {
	f := &File{Path: path}
	if err := topKeys(path, raw); err != nil {
		return nil, err
	}
	var err error
	if f.Quotas, raw, err = joinstore.ParseQuotas(path, raw); err != nil {
		return nil, err
	}
	if f.Executions, raw, err = execution.ParseConfig(path, raw); err != nil {
		return nil, err
	}
	if f.Addresses, raw, err = rulesource.ParseAddresses(path, raw); err != nil {
		return nil, err
	}
	if f.Index, err = indexer.ParseConfig(path, raw); err != nil {
		return nil, err
	}
	var top map[string]yaml.Node
	if yaml.Unmarshal(raw, &top) == nil {
		_, f.SetsFinality = top["finality"]
	}
	return f, nil
}

// Sections are the config file's top-level sections besides the index's
// settings (indexer.ConfigKeys).
var Sections = []string{joinstore.QuotasConfigKey, execution.ConfigKey, rulesource.AddressesKey}

// topKeys refuses top-level keys that neither a section nor the index
// knows, each with file:line:column and every key allowed there. A file
// that is not a YAML mapping is left to the index's parser to report.
func topKeys(path string, raw []byte) error {
	var doc yaml.Node
	if yaml.Unmarshal(raw, &doc) != nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil
	}
	known := append(append([]string{}, indexer.ConfigKeys...), Sections...)
	var problems []string
	top := doc.Content[0]
	for i := 0; i+1 < len(top.Content); i += 2 {
		if k := top.Content[i]; !slices.Contains(known, k.Value) {
			problems = append(problems, fmt.Sprintf("%s:%d:%d: unknown setting %q (known at the top level: %s)", path, k.Line, k.Column, k.Value, strings.Join(known, ", ")))
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("invalid config %s:\n  %s", path, strings.Join(problems, "\n  "))
	}
	return nil
}
