package rule

import "errors"

// ErrOutputTooLarge is the MaxOutputBytes cap: a branch payload or a
// wake-up payload would be larger than it (hard error).
var ErrOutputTooLarge = errors.New("output too large")

// outputSize is the size of v as JSON (strings with their quotes and
// escapes of quotes, backslashes and control characters; lists and maps
// with their punctuation), counted until it passes budget: a result over
// budget means "over", not the full size. v is a plain value as outputs
// hold them (see normalize and fromCEL), nested at most MaxValueDepth
// levels.
func outputSize(v any, budget int) int {
	switch x := v.(type) {
	case string:
		n := len(x) + 2
		for i := 0; i < len(x) && n <= budget; i++ {
			switch c := x[i]; {
			case c == '"' || c == '\\':
				n++
			case c < 0x20:
				n += 5
			}
		}
		return n
	case bool:
		if x {
			return 4
		}
		return 5
	case nil:
		return 4
	case []byte:
		return 2*len(x) + 4
	case []any:
		n := 2
		for i, e := range x {
			if i > 0 {
				n++
			}
			if n > budget {
				return n
			}
			n += outputSize(e, budget-n)
		}
		return n
	case map[string]any:
		n, i := 2, 0
		for k, e := range x {
			if i > 0 {
				n++
			}
			i++
			if n > budget {
				return n
			}
			n += outputSize(k, budget-n) + 1
			n += outputSize(e, budget-n)
		}
		return n
	}
	return len(Text(v))
}
