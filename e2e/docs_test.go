package e2e

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode"

	"github.com/xgr-sidecar/xgr/internal/toolbin"
)

// A checked block is a fenced ```sh block of the documentation preceded by
// an HTML comment that marks it (invisible on GitHub):
//
//	<!-- check expect="ok: id nested_join_example" env="XGR_RPC_LISTEN=127.0.0.1:0" -->
//	```sh
//	xgr ostc validate examples/ostc/nested_join.json
//	```
//
// TestDocCommands runs the checked blocks of each document in order, in one
// bash (so a block may use what an earlier one exported or started, as a
// reader's shell would), from a directory holding a copy of examples/ — the
// commands are written as a reader types them at the repository's root.
// Every command must succeed and each expect="…" must occur in the
// block's output (stdout and stderr). The blocks run as in a reader's
// shell: PATH is bin/ (the xgr under test) and .tools/bin before the
// system's, as the README's first block sets it, and there is no set -e —
// an ERR trap reports every failed command instead, and a wait loop that
// never ends runs into the timeout, as it would never end for the reader.
// env="K=V" runs that block in a
// subshell with K=V exported: the tests use it only to move servers that
// listen on fixed ports by default (the gateway of xgr dev, /metrics of xgr
// run) to free ones, so parallel tests cannot collide.
func TestDocCommands(t *testing.T) {
	var files []string
	for _, pattern := range []string{"../README.md", "../docs/*.md", "../examples/README.md", "../examples/*/README.md"} {
		m, _ := filepath.Glob(pattern)
		files = append(files, m...)
	}
	checked := 0
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		blocks, err := checkedBlocks(string(raw))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if len(blocks) == 0 {
			continue
		}
		checked++
		t.Run(strings.TrimPrefix(f, "../"), func(t *testing.T) { runBlocks(t, blocks) })
	}
	// The README's tour and each example's README are checked.
	if checked < 2 {
		t.Fatalf("only %d documents have checked blocks", checked)
	}
}

// errMarker starts the line the ERR trap prints for a failed command.
const errMarker = "@@ERR "

// docBlock is one checked shell block.
type docBlock struct {
	line   int // of the opening fence
	script string
	expect []string
	env    []string
}

var checkAttr = regexp.MustCompile(`(\w+)=("(?:[^"\\]|\\.)*")`)

// checkedBlocks finds the checked blocks of a Markdown document. A marker
// not followed by a ```sh block, an unknown attribute or an unclosed block
// is an error, so a typo cannot silently leave a block unchecked.
func checkedBlocks(doc string) ([]docBlock, error) {
	lines := strings.Split(doc, "\n")
	var out []docBlock
	fence := "" // the fence of an unmarked code block being skipped
	for i := 0; i < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		if fence != "" {
			if strings.Trim(l, "`") == "" && len(l) >= len(fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(l, "```") {
			fence = l[:len(l)-len(strings.TrimLeft(l, "`"))]
			continue
		}
		if !strings.HasPrefix(l, "<!-- check") {
			continue
		}
		start := i + 1
		marker := lines[i]
		for !strings.Contains(lines[i], "-->") {
			i++
			if i == len(lines) {
				return nil, fmt.Errorf("line %d: the check marker is not closed with -->", start)
			}
			marker += "\n" + lines[i]
		}
		var b docBlock
		body := strings.TrimSuffix(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(marker), "<!-- check")), "-->")
		rest := checkAttr.ReplaceAllStringFunc(body, func(attr string) string {
			m := checkAttr.FindStringSubmatch(attr)
			v, err := strconv.Unquote(m[2])
			if err != nil {
				return attr // reported below as left over
			}
			switch m[1] {
			case "expect":
				b.expect = append(b.expect, v)
			case "env":
				b.env = append(b.env, v)
			default:
				return attr
			}
			return ""
		})
		if strings.TrimSpace(rest) != "" {
			return nil, fmt.Errorf("line %d: check marker: cannot read %q (allowed: expect=\"…\", env=\"K=V\")", start, strings.TrimSpace(rest))
		}
		i++
		if i == len(lines) || strings.TrimSpace(lines[i]) != "```sh" {
			return nil, fmt.Errorf("line %d: a check marker must stand right before a ```sh block", start)
		}
		b.line = i + 1
		var body2 []string
		for i++; i < len(lines) && strings.TrimSpace(lines[i]) != "```"; i++ {
			body2 = append(body2, lines[i])
		}
		if i == len(lines) {
			return nil, fmt.Errorf("line %d: the ```sh block is not closed", b.line)
		}
		b.script = strings.Join(body2, "\n")
		out = append(out, b)
	}
	return out, nil
}

// blockMarker separates the blocks' output.
const blockMarker = "@@xgr-doc-block "

// runBlocks runs a document's checked blocks as one bash script and checks
// each block's output.
func runBlocks(t *testing.T, blocks []docBlock) {
	work := t.TempDir()
	if err := copyTree("../examples", filepath.Join(work, "examples")); err != nil {
		t.Fatal(err)
	}
	var script strings.Builder
	// As a reader's interactive shell runs them: no set -e (a failed
	// command does not end the shell, a wait loop whose server never came
	// up spins), but every failed command is reported by the ERR trap, in
	// subshells too (-E), and the test fails on the first one.
	script.WriteString("set -E\ntrap 'echo \"" + errMarker + "$LINENO: $BASH_COMMAND\" >&2' ERR\n")
	all := ""
	for i, b := range blocks {
		fmt.Fprintf(&script, "echo '%s%d@@'\n", blockMarker, i)
		if len(b.env) > 0 {
			script.WriteString("(\n")
			for _, kv := range b.env {
				k, v, _ := strings.Cut(kv, "=")
				fmt.Fprintf(&script, "export %s=%s\n", k, strconv.Quote(v))
			}
		}
		script.WriteString(b.script + "\n")
		if len(b.env) > 0 {
			script.WriteString(")\n")
		}
		all += b.script + "\n"
	}
	fmt.Fprintf(&script, "echo '%send@@'\n", blockMarker)

	// The PATH a reader has after the README's first block: bin/ (this
	// run's xgr) and the repository's .tools/bin (what make tools
	// installs: anvil, solcjs, …) before their own. Nothing else is linked
	// in: a tool the guides use that is neither there nor on the system's
	// PATH fails the block as it would fail the reader. A tool that is
	// missing altogether fails here, with how to install it.
	bin := filepath.Join(work, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(xgrBin, filepath.Join(bin, "xgr")); err != nil {
		t.Fatal(err)
	}
	tools, err := toolbin.ToolDir()
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range []string{"redis-server", "redis-cli", "dot", "anvil", "solcjs", "node"} {
		if _, err := toolbin.Find(tool); err != nil && regexp.MustCompile(`(^|[\s|;&(])`+regexp.QuoteMeta(tool)+`\s`).MatchString(all) {
			t.Fatal(err)
		}
	}
	// A short TMPDIR keeps unix socket paths under their length limit.
	tmp, err := os.MkdirTemp("", "xgrdoc")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	home := filepath.Join(work, ".home")
	os.Mkdir(home, 0o755)

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", script.String())
	cmd.Dir = work
	cmd.Env = []string{"PATH=" + bin + ":" + filepath.Join(tools, "bin") + ":" + os.Getenv("PATH"), "HOME=" + home, "TMPDIR=" + tmp, "LANG=C.UTF-8"}
	var out toolbin.Output
	cmd.Stdout, cmd.Stderr = &out, &out
	// Background jobs a block starts (redis-server, xgr run) share bash's
	// process group: it is killed at the end whatever happened.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	runErr := cmd.Run()
	if cmd.Process != nil {
		// Let the group go before the next document starts its servers
		// on the same ports (zombies may keep it for the last 2 s).
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		for end := time.Now().Add(2 * time.Second); time.Now().Before(end) && syscall.Kill(-cmd.Process.Pid, 0) == nil; {
			time.Sleep(20 * time.Millisecond)
		}
	}

	parts := strings.Split(out.String(), blockMarker)
	outputs := map[int]string{}
	reached, ended := -1, false
	for _, p := range parts[1:] {
		id, rest, _ := strings.Cut(p, "@@\n")
		if id == "end" {
			ended = true
			continue
		}
		n, err := strconv.Atoi(id)
		if err != nil {
			continue
		}
		outputs[n], reached = rest, n
	}
	if i := strings.Index(out.String(), errMarker); i >= 0 {
		failed, _, _ := strings.Cut(out.String()[i+len(errMarker):], "\n")
		for n := len(blocks) - 1; n >= 0; n-- {
			if strings.Contains(outputs[n], errMarker+failed) || n == 0 {
				t.Fatalf("a command of the block at line %d failed (script line %s):\n%s\n--- its output:\n%s", blocks[n].line, failed, blocks[n].script, outputs[n])
			}
		}
	}
	if runErr != nil || !ended {
		var exit *exec.ExitError
		why := fmt.Sprint(runErr)
		if errors.As(runErr, &exit) {
			why = fmt.Sprintf("exit status %d", exit.ExitCode())
		}
		if ctx.Err() != nil {
			why = "timed out after 5m"
		}
		if reached < 0 {
			t.Fatalf("the script failed before its first block (%s):\n%s", why, out.String())
		}
		b := blocks[reached]
		t.Fatalf("the block at line %d failed (%s):\n%s\n--- its output:\n%s", b.line, why, b.script, outputs[reached])
	}
	for i, b := range blocks {
		for _, want := range b.expect {
			if !strings.Contains(outputs[i], want) {
				t.Errorf("the block at line %d does not print %q:\n%s\n--- its output:\n%s", b.line, want, b.script, outputs[i])
			}
		}
	}
}

// TestDocLinks checks every relative link of the documentation: the file or
// folder exists, and an #anchor names a heading of the Markdown file it
// points to (GitHub's heading ids).
func TestDocLinks(t *testing.T) {
	var files []string
	for _, pattern := range []string{"../README.md", "../docs/*.md", "../examples/README.md", "../examples/*/README.md"} {
		m, _ := filepath.Glob(pattern)
		files = append(files, m...)
	}
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(stripCode(string(raw)), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			path, anchor, _ := strings.Cut(target, "#")
			dest := f
			if path != "" {
				dest = filepath.Join(filepath.Dir(f), path)
			}
			rel, _ := filepath.Rel("..", dest)
			if _, err := os.Stat(dest); err != nil {
				t.Errorf("%s: link %s: %s does not exist", f, target, rel)
				continue
			}
			if anchor == "" {
				continue
			}
			doc, err := os.ReadFile(dest)
			if err != nil || !strings.HasSuffix(dest, ".md") {
				t.Errorf("%s: link %s: an anchor needs a Markdown file", f, target)
				continue
			}
			if ids := headingIDs(string(doc)); !ids[anchor] {
				t.Errorf("%s: link %s: %s has no heading with the id %q", f, target, rel, anchor)
			}
		}
	}
}

// stripCode removes fenced code blocks, whose brackets are not links.
func stripCode(doc string) string {
	var out []string
	in := false
	for _, l := range strings.Split(doc, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			in = !in
			continue
		}
		if !in {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// headingIDs are the ids GitHub gives the headings of a Markdown document:
// lower case, punctuation dropped, spaces as hyphens, -1, -2… on repeats.
func headingIDs(doc string) map[string]bool {
	ids := map[string]bool{}
	seen := map[string]int{}
	for _, l := range strings.Split(stripCode(doc), "\n") {
		if !strings.HasPrefix(l, "#") {
			continue
		}
		text := strings.TrimSpace(strings.TrimLeft(l, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(text) {
			switch {
			case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
				b.WriteRune(r)
			case r == ' ':
				b.WriteRune('-')
			}
		}
		id := b.String()
		if n := seen[id]; n > 0 {
			ids[fmt.Sprintf("%s-%d", id, n)] = true
		} else {
			ids[id] = true
		}
		seen[id]++
	}
	return ids
}

// copyTree copies the regular files under src to dst.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		raw, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, raw, 0o644)
	})
}

// The marker syntax: what is read, and what is refused instead of leaving a
// block silently unchecked.
func TestCheckedBlocks(t *testing.T) {
	for _, tc := range []struct {
		name, doc string
		want      []docBlock
		err       string
	}{
		{"plain", "text\n<!-- check -->\n```sh\nxgr version\n```\n", []docBlock{{line: 3, script: "xgr version"}}, ""},
		{"unmarked blocks are not run", "```sh\nmake tools\n```\n", nil, ""},
		{"a marker inside a code block is an example", "````markdown\n<!-- check -->\n```sh\nx\n```\n````\n<!-- check -->\n```sh\ny\n```", []docBlock{{line: 8, script: "y"}}, ""},
		{"attributes", "<!-- check expect=\"a \\\"b\\\"\" env=\"K=V\"\n expect=\"c\" -->\n```sh\nx\ny\n```", []docBlock{{line: 3, script: "x\ny", expect: []string{`a "b"`, "c"}, env: []string{"K=V"}}}, ""},
		{"unknown attribute", "<!-- check want=\"a\" -->\n```sh\nx\n```", nil, `line 1: check marker: cannot read "want=\"a\""`},
		{"marker without block", "<!-- check -->\n\n```sh\nx\n```", nil, "line 1: a check marker must stand right before a ```sh block"},
		{"console block", "<!-- check -->\n```console\n$ x\n```", nil, "must stand right before a ```sh block"},
		{"unclosed marker", "<!-- check expect=\"a\"\n```sh\n", nil, "line 1: the check marker is not closed"},
		{"unclosed block", "<!-- check -->\n```sh\nx\n", nil, "line 2: the ```sh block is not closed"},
	} {
		got, err := checkedBlocks(tc.doc)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil || fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s: %+v, %v; want %+v", tc.name, got, err, tc.want)
		}
	}
}

// TestDocReferencesOutsideDocs checks the documentation references written
// in plain text outside the Markdown files — deploy files' comments, alert
// summaries, the systemd unit, Go messages and comments: every
// docs/NAME.md#anchor names a file and a heading it has.
func TestDocReferencesOutsideDocs(t *testing.T) {
	ref := regexp.MustCompile(`docs/([a-z0-9_-]+\.md)#([a-z0-9_-]+)`)
	ids := map[string]map[string]bool{}
	checked := 0
	err := filepath.WalkDir("..", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", ".tools", "node_modules", "bin", "testdata":
				return filepath.SkipDir
			}
			return nil
		}
		switch filepath.Ext(path) {
		case ".go", ".yaml", ".yml", ".service", ".sh", ".json", ".html", ".js":
		default:
			return nil
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range ref.FindAllStringSubmatch(string(raw), -1) {
			if ids[m[1]] == nil {
				doc, err := os.ReadFile(filepath.Join("..", "docs", m[1]))
				if err != nil {
					t.Errorf("%s: %s: no such page", path, m[0])
					continue
				}
				ids[m[1]] = headingIDs(string(doc))
			}
			checked++
			if !ids[m[1]][m[2]] {
				t.Errorf("%s: %s: docs/%s has no heading with the id %q", path, m[0], m[1], m[2])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked == 0 {
		t.Fatal("found no docs/…md#anchor reference outside the docs: the pattern is broken")
	}
}
