package joinstore

import (
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/xgr-sidecar/xgr/internal/yamlsection"
)

// QuotasConfigKey is the config file's section of the owners' quotas:
//
//	quotas:
//	  liveSessions: 100        # the default of every owner (0: no limit)
//	  startsPerMinute: 600
//	  liveProcesses: 20000
//	  weight: 1                # share of a replica's session slots (0: 1)
//	  owners:                  # per owner, the fields that differ
//	    "0x…": {liveSessions: 1000, liveProcesses: -1, weight: 4}   # -1: no limit
const QuotasConfigKey = "quotas"

var quotaFields = []string{"liveSessions", "startsPerMinute", "liveProcesses", "weight"}

// ParseQuotas reads the quotas: section of the YAML config raw (file
// names it in errors) and returns raw with that section blanked, for the
// other sections' parsers. A file without the section gives no quotas.
// Every problem is reported with its line and column.
func ParseQuotas(file string, raw []byte) (Quotas, []byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(raw, &doc); err != nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return Quotas{}, raw, nil
	}
	top := doc.Content[0]
	for i := 0; i+1 < len(top.Content); i += 2 {
		k, v := top.Content[i], top.Content[i+1]
		if k.Value != QuotasConfigKey {
			continue
		}
		if top.Style&yaml.FlowStyle != 0 {
			return Quotas{}, nil, fmt.Errorf("%s:%d:%d: %s: write the quotas section as a block of its own", file, k.Line, k.Column, QuotasConfigKey)
		}
		var problems []string
		bad := func(n *yaml.Node, path, format string, args ...any) {
			problems = append(problems, fmt.Sprintf("%s:%d:%d: %s: %s", file, n.Line, n.Column, path, fmt.Sprintf(format, args...)))
		}
		var q Quotas
		if v.Kind == yaml.MappingNode {
			q.Default = parseQuota(v, QuotasConfigKey, false, bad, func(key string, n *yaml.Node) bool {
				if key != "owners" {
					return false
				}
				if n.Kind != yaml.MappingNode {
					bad(n, QuotasConfigKey+".owners", "want a map of owner address to quotas")
					return true
				}
				q.Owners = map[string]Quota{}
				for j := 0; j+1 < len(n.Content); j += 2 {
					ok, ov := n.Content[j], n.Content[j+1]
					o := NormalizeOwner(ok.Value)
					path := QuotasConfigKey + ".owners." + ok.Value
					if err := CheckOwner(o); err != nil {
						bad(ok, path, "want an EVM address (0x and 40 hex digits)")
						continue
					}
					if ov.Kind != yaml.MappingNode {
						bad(ov, path, "want a map of %s", strings.Join(quotaFields, ", "))
						continue
					}
					q.Owners[o] = parseQuota(ov, path, true, bad, nil)
				}
				return true
			})
		} else if !(v.Kind == yaml.ScalarNode && v.Tag == "!!null") {
			bad(v, QuotasConfigKey, "want a map of %s and owners", strings.Join(quotaFields, ", "))
		}
		if len(problems) > 0 {
			return Quotas{}, nil, fmt.Errorf("invalid %s section in %s:\n  %s", QuotasConfigKey, file, strings.Join(problems, "\n  "))
		}
		return q, yamlsection.Blank(raw, top, i), nil
	}
	return Quotas{}, raw, nil
}

// parseQuota reads one map of quota fields; other keys go to extra (nil:
// none allowed). negative allows -1 (an owner's "no limit").
func parseQuota(m *yaml.Node, path string, negative bool, bad func(*yaml.Node, string, string, ...any), extra func(string, *yaml.Node) bool) Quota {
	var q Quota
	for j := 0; j+1 < len(m.Content); j += 2 {
		k, v := m.Content[j], m.Content[j+1]
		var dst *int64
		switch k.Value {
		case "liveSessions":
			dst = &q.LiveSessions
		case "startsPerMinute":
			dst = &q.StartsPerMinute
		case "liveProcesses":
			dst = &q.LiveProcesses
		case "weight":
			dst = &q.Weight
		default:
			if extra == nil || !extra(k.Value, v) {
				bad(k, path+"."+k.Value, "unknown setting; known: %s", strings.Join(quotaFields, ", "))
			}
			continue
		}
		n, err := strconv.ParseInt(v.Value, 10, 64)
		switch {
		case v.Kind != yaml.ScalarNode || err != nil:
			bad(v, path+"."+k.Value, "%q: want a whole number", v.Value)
		case n < 0 && k.Value == "weight":
			bad(v, path+"."+k.Value, "%d: want 0 (the default, 1) or more", n)
		case n < 0 && !(negative && n == -1):
			if negative {
				bad(v, path+"."+k.Value, "%d: want 0 (the default), -1 (no limit) or more", n)
			} else {
				bad(v, path+"."+k.Value, "%d: want 0 (no limit) or more", n)
			}
		default:
			*dst = n
		}
	}
	return q
}
