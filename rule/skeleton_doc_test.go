package rule

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// The rule document skeleton in docs/authoring.md, its reading comments
// removed and its placeholder addresses filled in, is a valid document
// that uses every top-level member and every outcome member.
func TestAuthoringSkeletonIsValid(t *testing.T) {
	raw, err := os.ReadFile("../docs/authoring.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(raw), "### A rule document's skeleton")
	if !ok {
		t.Fatal("docs/authoring.md has no \"A rule document's skeleton\" section")
	}
	_, rest, ok = strings.Cut(rest, "```jsonc\n")
	block, _, ok2 := strings.Cut(rest, "\n```")
	if !ok || !ok2 {
		t.Fatal("the skeleton section has no jsonc block")
	}
	text := regexp.MustCompile(`[ \t]+// [^\n]*`).ReplaceAllString(block, "")
	text = strings.ReplaceAll(text, "0x…", "0x1111111111111111111111111111111111111111")
	doc, err := Parse([]byte(text))
	if err != nil {
		t.Fatalf("the skeleton is not a valid rule document: %v\n%s", err, text)
	}
	if len(doc.Warnings) > 0 {
		t.Errorf("warnings: %v", doc.Warnings)
	}
	for _, member := range []string{`"payload"`, `"contractReads"`, `"apiCalls"`, `"rules"`, `"onValid"`, `"onInvalid"`,
		`"execution"`, `"grants"`, `"wakeUps"`, `"waitSec"`, `"logExpireDays"`, `"encryptLogs"`} {
		if !strings.Contains(text, member) {
			t.Errorf("the skeleton lacks %s", member)
		}
	}
}
