package rulesource

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/xgr-sidecar/xgr/rule"
)

// IndexFile is the name of the optional index in a rule directory.
const IndexFile = "rules.json"

// Dir is a local rule file map (see the package documentation). It is
// safe for concurrent use.
type Dir struct {
	path  string
	index map[string]Target // by reference; addresses lower-cased
	files map[string]string // file stem -> path; address stems lower-cased

	cache  rule.DocumentCache
	mu     sync.Mutex
	loaded map[string]fileRule // by file path
}

// fileRule is a rule file as it was read: its document and the keccak256
// of its bytes.
type fileRule struct {
	doc  *rule.Document
	hash common.Hash
}

// Target is what a reference maps to: a file or a contract address.
type Target struct {
	File    string
	Address common.Address
	// Via says how it was found, e.g. "rules/rules.json" or "file name".
	Via string
}

// OpenDir reads the directory listing and its rules.json, if any. Every
// file rules.json names must exist; rule files themselves are read on
// first use.
func OpenDir(path string) (*Dir, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("rule directory: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("rule directory %s is not a directory", path)
	}
	d := &Dir{path: path, index: map[string]Target{}, files: map[string]string{}, loaded: map[string]fileRule{}}
	entries, err := os.ReadDir(path)
	if err != nil {
		return nil, fmt.Errorf("rule directory: %w", err)
	}
	for _, e := range entries {
		stem, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || e.IsDir() || e.Name() == IndexFile || !validName(stem) {
			continue
		}
		d.files[refKey(stem)] = filepath.Join(path, e.Name())
	}
	if err := d.readIndex(); err != nil {
		return nil, err
	}
	return d, nil
}

func (d *Dir) readIndex() error {
	file := filepath.Join(d.path, IndexFile)
	raw, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var idx map[string]string
	if err := json.Unmarshal(raw, &idx); err != nil {
		return fmt.Errorf("%s: expected a JSON object mapping rule references to rule files or 0x addresses, e.g. {\"<Step-Addr>\": \"step.json\"}: %v", file, err)
	}
	keys := make([]string, 0, len(idx))
	for k := range idx {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, ref := range keys {
		val := idx[ref]
		switch {
		case ref == "":
			return fmt.Errorf("%s: an empty reference; keys are step rules as the orchestration writes them", file)
		case rule.IsAddress(val):
			d.index[refKey(ref)] = Target{Address: common.HexToAddress(val), Via: file}
		case val == "":
			return fmt.Errorf("%s: %q maps to nothing; give a rule file (relative to %s) or a 0x address", file, ref, d.path)
		default:
			p := val
			if !filepath.IsAbs(p) {
				p = filepath.Join(d.path, p)
			}
			if st, err := os.Stat(p); err != nil || !st.Mode().IsRegular() {
				return fmt.Errorf("%s: %q maps to %s, which is not a readable file: %v", file, ref, p, errOr(err, "not a regular file"))
			}
			d.index[refKey(ref)] = Target{File: p, Via: file}
		}
	}
	return nil
}

func errOr(err error, msg string) error {
	if err != nil {
		return err
	}
	return errors.New(msg)
}

// refKey lower-cases addresses so they match in any letter case.
func refKey(ref string) string {
	if rule.IsAddress(ref) {
		return strings.ToLower(ref)
	}
	return ref
}

// validName tells whether a file stem may be matched by reference.
func validName(s string) bool {
	if s == "" || s[0] == '.' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// FileName is the file stem a reference is looked up under when rules.json
// does not name it: the address, the ALIAS of ${addr:ALIAS}, the NAME of
// <NAME>; "" when the reference has no such name.
func FileName(ref string) string {
	name := ref
	switch {
	case rule.IsAddress(ref):
		return strings.ToLower(ref)
	case strings.HasPrefix(ref, "${addr:") && strings.HasSuffix(ref, "}"):
		name = ref[len("${addr:") : len(ref)-1]
	case strings.HasPrefix(ref, "<") && strings.HasSuffix(ref, ">"):
		name = ref[1 : len(ref)-1]
	default:
		return ""
	}
	if !validName(name) {
		return ""
	}
	return name
}

// Resolve tells what ref maps to, by rules.json or by file name.
func (d *Dir) Resolve(ref string) (Target, bool) {
	if t, ok := d.index[refKey(ref)]; ok {
		return t, true
	}
	if name := FileName(ref); name != "" {
		if p, ok := d.files[name]; ok {
			return Target{File: p, Via: "file name"}, true
		}
	}
	return Target{}, false
}

// explain says where ref was looked for.
func (d *Dir) explain(ref string) string {
	where := "not in " + filepath.Join(d.path, IndexFile)
	if name := FileName(ref); name != "" {
		return where + " and no file " + filepath.Join(d.path, name+".json")
	}
	return where + " (and no file name derives from it)"
}

// Load implements Source for the file map alone.
func (d *Dir) Load(ctx context.Context, ref string) (*Loaded, error) {
	return (&Loader{Files: d}).Load(ctx, ref)
}

func (d *Dir) load(ref, file string) (*Loaded, error) {
	d.mu.Lock()
	fr, ok := d.loaded[file]
	d.mu.Unlock()
	if !ok {
		raw, err := os.ReadFile(file)
		if err == nil {
			err = checkPlain(raw)
		}
		if err == nil {
			fr.doc, err = d.cache.Parse(raw)
		}
		if err != nil {
			return nil, &Error{Ref: ref, Origin: file, Err: err}
		}
		fr.hash = crypto.Keccak256Hash(raw)
		d.mu.Lock()
		d.loaded[file] = fr
		d.mu.Unlock()
	}
	return &Loaded{Ref: ref, Doc: fr.doc, Origin: file, File: file, Hash: fr.hash}, nil
}
