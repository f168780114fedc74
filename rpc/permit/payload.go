package permit

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/go-json-experiment/json/jsontext"
)

// EmptyPayload is the payload text an absent or null payload counts as.
const EmptyPayload = "{}"

// PayloadHash is the payloadHash a bound permit (SessionPermitV2,
// ControlPermitV3) signs for a request's payload: keccak256 of the UTF-8
// bytes of CanonicalPayload(payload). An absent (empty) or null payload
// counts as {}.
func PayloadHash(payload []byte) (common.Hash, error) {
	canon, err := CanonicalPayload(payload)
	if err != nil {
		return common.Hash{}, err
	}
	return crypto.Keccak256Hash(canon), nil
}

// CanonicalPayload is the text PayloadHash hashes: the payload as
// JavaScript's JSON.stringify writes the value it was parsed into, except
// that numbers keep their exact text. That is:
//
//   - no whitespace outside strings;
//   - object members in the order sent, duplicates kept;
//   - numbers exactly as sent (18446744073709551617 stays so; 1e3 stays 1e3);
//   - strings with JSON.stringify's escapes: \" \\ \b \t \n \f \r, the other
//     characters below U+0020 as \u00xx (lowercase hex), everything else
//     (non-ASCII, <, >, &, /, U+2028) as itself in UTF-8;
//   - literals true, false, null as such.
//
// So a JavaScript client computes keccak256(toUtf8Bytes(JSON.stringify(p)))
// for the payload p it sends, and any client may reformat or re-escape the
// payload in transit without changing its hash. Empty or null input is
// {}; input that is not exactly one JSON value in valid UTF-8 is an error.
func CanonicalPayload(payload []byte) ([]byte, error) {
	trimmed := bytes.TrimSpace(payload)
	if len(trimmed) == 0 || string(trimmed) == "null" {
		return []byte(EmptyPayload), nil
	}
	dec := jsontext.NewDecoder(bytes.NewReader(trimmed))
	out := make([]byte, 0, len(trimmed))
	type level struct {
		object bool
		n      int
	}
	var stack []level
	done := false // one top-level value was read
	for {
		tok, err := dec.ReadToken()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("payload: %w", err)
		}
		if done {
			return nil, errors.New("payload: unexpected data after the JSON value")
		}
		kind := tok.Kind()
		if kind == '}' || kind == ']' {
			stack = stack[:len(stack)-1]
			out = append(out, byte(kind))
			done = len(stack) == 0
			continue
		}
		if len(stack) > 0 {
			top := &stack[len(stack)-1]
			switch {
			case top.object && top.n%2 == 1:
				out = append(out, ':')
			case top.n > 0:
				out = append(out, ',')
			}
			top.n++
		}
		switch kind {
		case '{', '[':
			out = append(out, byte(kind))
			stack = append(stack, level{object: kind == '{'})
		case '"':
			out = appendJSString(out, tok.String())
		default: // numbers and literals: their exact text
			out = append(out, tok.String()...)
		}
		done = len(stack) == 0
	}
	if len(stack) != 0 {
		return nil, errors.New("payload: unexpected end of JSON")
	}
	return out, nil
}

// appendJSString writes s as ECMAScript's QuoteJSONString does (s is valid
// UTF-8: jsontext refuses invalid UTF-8 and lone surrogates).
func appendJSString(out []byte, s string) []byte {
	const hex = "0123456789abcdef"
	out = append(out, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			_, n := utf8.DecodeRuneInString(s[i:])
			out = append(out, s[i:i+n]...)
			i += n
			continue
		}
		switch c {
		case '"':
			out = append(out, '\\', '"')
		case '\\':
			out = append(out, '\\', '\\')
		case '\b':
			out = append(out, '\\', 'b')
		case '\t':
			out = append(out, '\\', 't')
		case '\n':
			out = append(out, '\\', 'n')
		case '\f':
			out = append(out, '\\', 'f')
		case '\r':
			out = append(out, '\\', 'r')
		default:
			if c < 0x20 {
				out = append(out, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			} else {
				out = append(out, c)
			}
		}
		i++
	}
	return append(out, '"')
}
