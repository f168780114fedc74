package rule

import (
	"strings"
)

// Kind says how Eval-or-Render treats a string: rendered as a template or
// evaluated as a CEL expression.
type Kind uint8

// The two kinds of string values.
const (
	KindTemplate Kind = iota
	KindExpression
)

func (k Kind) String() string {
	if k == KindExpression {
		return "expression"
	}
	return "template"
}

// strongTokens make a string an expression wherever they stand outside
// placeholders (expression guide §4 rule 3).
const strongTokens = "*/%()<>"

// strongAt reports whether t[i] starts an operator token of rule 3. The
// guide lists "! = | &"; they count as the CEL operators they start
// ("==", "!=", "&&", "||", "!x"), so a lone "=" stays text, as in the
// guide's template "Hello [Name], amount=[Amount]".
func strongAt(t string, i int) bool {
	c := t[i]
	if strings.IndexByte(strongTokens, c) >= 0 {
		return true
	}
	var next byte
	if i+1 < len(t) {
		next = t[i+1]
	}
	switch c {
	case '=':
		return next == '='
	case '&', '|':
		return next == c
	case '!':
		return next == '=' || next == '(' || next == '[' || next == '!' || isIdentStart(next)
	}
	return false
}

// Classify applies the classification rules of the expression guide §4, in
// order:
//
//  1. the whole trimmed string is one placeholder "[Key]" → expression
//     (typed passthrough);
//  2. it is a literal: true, false, a number, a quoted string → expression;
//  3. an operator token * / % ( ) < > == != && || !x stands outside
//     placeholders → expression;
//  4. + or - in an obvious arithmetic context → expression (see below);
//  5. anything else → template.
//
// "Obvious arithmetic context" (rule 4) is defined here as: outside
// placeholders the string holds nothing but numbers, blanks and + / -, and
// some + or - stands between two operands that are either spaced out
// ("[A] + [B]", "1 - 2") or of different kinds, a placeholder and a number
// ("[Iter]+1"). So "[Base]-[Quote]", "DE-[country]" and "2024-01-01" stay
// templates. Write "([A]-[B])" to force arithmetic.
func Classify(s string) Kind {
	t := strings.TrimSpace(s)
	if t == "" {
		return KindTemplate
	}
	if t[0] == '[' {
		if _, end, ok := placeholderAt(t, 0); ok && end == len(t) {
			return KindExpression
		}
	}
	if isLiteral(t) {
		return KindExpression
	}
	for i := 0; i < len(t); i++ {
		if t[i] == '[' {
			if _, end, ok := placeholderAt(t, i); ok {
				i = end - 1
				continue
			}
		}
		if strongAt(t, i) {
			return KindExpression
		}
	}
	if arithmetic(t) {
		return KindExpression
	}
	return KindTemplate
}

// isLiteral reports CEL literals: booleans, numbers (decimal, exponent,
// hex, with a u suffix) and a single quoted string.
func isLiteral(t string) bool {
	switch t {
	case "true", "false":
		return true
	}
	if q := t[0]; (q == '"' || q == '\'') && len(t) >= 2 && t[len(t)-1] == q {
		return skipString(t, 0) == len(t)
	}
	n := strings.TrimPrefix(t, "-")
	if len(n) > 2 && n[0] == '0' && (n[1] == 'x' || n[1] == 'X') {
		// CEL hex literals hold 64 bits; "0x" + 40 hex digits is an
		// address, which renders as the text it is.
		h := strings.TrimSuffix(strings.TrimSuffix(n[2:], "u"), "U")
		return len(h) <= 16 && isHex(h)
	}
	if strings.HasSuffix(n, "u") || strings.HasSuffix(n, "U") {
		return isDigits(n[:len(n)-1])
	}
	return isDecimalText(n, true) && n[0] != '+' && n[0] != '-'
}

type atok uint8

const (
	tokPlaceholder atok = iota
	tokNumber
	tokSpace
	tokOp
)

// arithmetic implements rule 4 of Classify.
func arithmetic(t string) bool {
	var toks []atok
	for i := 0; i < len(t); {
		c := t[i]
		switch {
		case c == '[':
			_, end, ok := placeholderAt(t, i)
			if !ok {
				return false
			}
			toks = append(toks, tokPlaceholder)
			i = end
		case isDigit(c) || c == '.' && i+1 < len(t) && isDigit(t[i+1]):
			j := i
			for j < len(t) && (isDigit(t[j]) || t[j] == '.') {
				j++
			}
			if j < len(t) && (t[j] == 'e' || t[j] == 'E') {
				k := j + 1
				if k < len(t) && (t[k] == '+' || t[k] == '-') {
					k++
				}
				if k < len(t) && isDigit(t[k]) {
					for j = k; j < len(t) && isDigit(t[j]); j++ {
					}
				}
			}
			toks = append(toks, tokNumber)
			i = j
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			for i < len(t) && (t[i] == ' ' || t[i] == '\t' || t[i] == '\n' || t[i] == '\r') {
				i++
			}
			toks = append(toks, tokSpace)
		case c == '+' || c == '-':
			toks = append(toks, tokOp)
			i++
		default:
			return false
		}
	}
	operand := func(k atok) bool { return k == tokPlaceholder || k == tokNumber }
	for i, k := range toks {
		if k != tokOp {
			continue
		}
		l, r := i-1, i+1
		spacedL := l >= 0 && toks[l] == tokSpace
		spacedR := r < len(toks) && toks[r] == tokSpace
		if spacedL {
			l--
		}
		if spacedR {
			r++
		}
		if l < 0 || r >= len(toks) || !operand(toks[l]) || !operand(toks[r]) {
			continue
		}
		if (spacedL && spacedR) || toks[l] != toks[r] {
			return true
		}
	}
	return false
}
