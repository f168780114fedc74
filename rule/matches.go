package rule

import (
	"fmt"
	"regexp"
	"regexp/syntax"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
)

// Regular expressions (CEL's matches) are bounded before they are
// compiled or run: the pattern's length, the size of the program it
// compiles to (estimated from its parse, without expanding repetitions),
// and the work of one match, which RE2 keeps linear in the input length
// times the program size.
const (
	// MaxRegexLen is the longest pattern matches accepts, in bytes.
	MaxRegexLen = 1024
	// MaxRegexInsts is the largest program a pattern may compile to.
	MaxRegexInsts = 4096
	// MaxRegexWork bounds one match: input bytes × program size.
	MaxRegexWork = 20_000_000
)

// regexCost is what a match of a pattern of insts instructions over n
// bytes is charged (MaxEvalCost units): a match at MaxRegexWork takes a
// fifth of the budget.
func regexCost(n, insts int) uint64 { return uint64(n)*uint64(insts)/1000 + 1 }

// regexSize estimates the instructions re compiles to, stopping past
// limit: repetitions count their copies, without building them.
func regexSize(re *syntax.Regexp, limit int) int {
	n := 1
	switch re.Op {
	case syntax.OpLiteral:
		n += len(re.Rune)
	case syntax.OpRepeat:
		copies := re.Max
		if copies < 0 {
			copies = re.Min + 1
		}
		sub := regexSize(re.Sub[0], limit)
		if copies > 0 && sub > limit/copies {
			return limit + 1
		}
		n += copies * sub
	default:
		for _, s := range re.Sub {
			if n += regexSize(s, limit); n > limit {
				return n
			}
		}
	}
	return n
}

// checkPattern parses a pattern and returns its estimated program size,
// or an error naming the bound it breaks.
func checkPattern(p string) (int, error) {
	if len(p) > MaxRegexLen {
		return 0, fmt.Errorf("%w: a pattern of %d bytes; at most %d are allowed (MaxRegexLen)", ErrValueTooLarge, len(p), MaxRegexLen)
	}
	re, err := syntax.Parse(p, syntax.Perl)
	if err != nil {
		return 0, err
	}
	insts := regexSize(re, MaxRegexInsts)
	if insts > MaxRegexInsts {
		return 0, fmt.Errorf("%w: the pattern compiles to more than %d instructions (MaxRegexInsts)", ErrExprTooComplex, MaxRegexInsts)
	}
	return insts, nil
}

// matches is CEL's matches(string, pattern) with the bounds above checked
// before the pattern is compiled and before it runs.
func matches(s, p ref.Val) ref.Val {
	if types.IsUnknownOrError(s) {
		return s
	}
	if types.IsUnknownOrError(p) {
		return p
	}
	str, ok1 := s.(types.String)
	pat, ok2 := p.(types.String)
	if !ok1 || !ok2 {
		return types.MaybeNoSuchOverloadErr(s)
	}
	insts, err := checkPattern(string(pat))
	if err != nil {
		return types.WrapErr(fmt.Errorf("matches: %w", err))
	}
	if work := len(str) * insts; work > MaxRegexWork {
		return types.WrapErr(fmt.Errorf("%w: matching %d bytes with a pattern of about %d instructions is more than %d steps (MaxRegexWork)",
			ErrExprTooComplex, len(str), insts, MaxRegexWork))
	}
	re, err := regexp.Compile(string(pat))
	if err != nil {
		return types.WrapErr(fmt.Errorf("matches: %w", err))
	}
	return types.Bool(re.MatchString(string(str)))
}
