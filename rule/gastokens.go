package rule

// CountGasTokens counts the complexity indicators of the validation gas
// heuristic (guide §3) in an expression as written:
//
//   - operators && || != == < <= > >= % * / + -, where + and - count only
//     as binary operators (after an operand: a number, an identifier, a
//     placeholder, a string, ")" or "]"), so "-5" and "a * -b" count one
//     operator less than they have signs;
//   - function calls, any identifier directly followed by "(" (also in
//     method form: "x.startsWith(" counts "startsWith(");
//   - placeholders "[Key]" (expression guide §2; "[0]" and "[x + 1]" are
//     not placeholders);
//   - regex use: a call of matches( or regex(.
//
// The text inside string literals and placeholders is not scanned: an
// operator in a quoted regex is not CEL work. It never fails; any text
// has counts.
func CountGasTokens(src string) GasTokens {
	var t GasTokens
	operand := false // the last token ends an operand
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '"' || c == '\'':
			i = skipString(src, i)
			operand = true
		case c == '[':
			if _, end, ok := placeholderAt(src, i); ok {
				t.Placeholders++
				i = end
				operand = true
				continue
			}
			i++
			operand = false
		case isIdentStart(c):
			j := i + 1
			for j < len(src) && isIdentChar(src[j]) {
				j++
			}
			name := src[i:j]
			k := j
			for k < len(src) && isBlank(src[k]) {
				k++
			}
			if k < len(src) && src[k] == '(' {
				t.Funcs++
				if name == "matches" || name == "regex" {
					t.Regex = true
				}
			}
			i = j
			operand = true
		case isDigit(c) || c == '.' && i+1 < len(src) && isDigit(src[i+1]):
			i = skipNumber(src, i)
			operand = true
		case c == ')' || c == ']':
			i++
			operand = true
		case c == '&' || c == '|':
			if i+1 < len(src) && src[i+1] == c {
				t.Ops++
				i += 2
			} else {
				i++
			}
			operand = false
		case c == '=' || c == '!':
			if i+1 < len(src) && src[i+1] == '=' {
				t.Ops++
				i += 2
			} else {
				i++
			}
			operand = false
		case c == '<' || c == '>':
			t.Ops++
			i++
			if i < len(src) && src[i] == '=' {
				i++
			}
			operand = false
		case c == '%' || c == '*' || c == '/':
			t.Ops++
			i++
			operand = false
		case c == '+' || c == '-':
			if operand {
				t.Ops++
			}
			i++
			operand = false
		case isBlank(c):
			i++
		default:
			i++
			operand = false
		}
	}
	return t
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// skipNumber returns the index just past the number at src[i]: digits,
// a fraction, an exponent with its sign, a hex body, a u suffix.
func skipNumber(src string, i int) int {
	j := i
	if src[j] == '0' && j+1 < len(src) && (src[j+1] == 'x' || src[j+1] == 'X') {
		j += 2
		for j < len(src) && isHexDigit(src[j]) {
			j++
		}
	} else {
		for j < len(src) && (isDigit(src[j]) || src[j] == '.') {
			j++
		}
		if j < len(src) && (src[j] == 'e' || src[j] == 'E') {
			k := j + 1
			if k < len(src) && (src[k] == '+' || src[k] == '-') {
				k++
			}
			if k < len(src) && isDigit(src[k]) {
				for j = k; j < len(src) && isDigit(src[j]); j++ {
				}
			}
		}
	}
	if j < len(src) && (src[j] == 'u' || src[j] == 'U') {
		j++
	}
	return j
}

func isHexDigit(c byte) bool {
	return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}
