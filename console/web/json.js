// Pretty-prints JSON text without parsing it into JavaScript values, so
// that every number keeps the digits the server sent (payloads may hold
// integers beyond 2^53 and decimals no float can represent).
export function pretty(text) {
  if (text === undefined || text === null || text === '') return '';
  let out = '';
  let indent = 0;
  let inStr = false;
  let esc = false;
  const nl = () => '\n' + '  '.repeat(indent);
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (inStr) {
      out += ch;
      if (esc) esc = false;
      else if (ch === '\\') esc = true;
      else if (ch === '"') inStr = false;
      continue;
    }
    switch (ch) {
      case '"':
        inStr = true;
        out += ch;
        break;
      case '{':
      case '[': {
        let j = i + 1;
        while (j < text.length && /\s/.test(text[j])) j++;
        if (text[j] === (ch === '{' ? '}' : ']')) {
          out += ch + text[j];
          i = j;
          break;
        }
        indent++;
        out += ch + nl();
        break;
      }
      case '}':
      case ']':
        indent = Math.max(0, indent - 1);
        out += nl() + ch;
        break;
      case ',':
        out += ',' + nl();
        break;
      case ':':
        out += ': ';
        break;
      default:
        if (!/\s/.test(ch)) out += ch;
    }
  }
  return out;
}

// Checks that text is one JSON object (JSON.parse only validates here:
// the text itself is what is sent, digits intact).
export function isObjectText(text) {
  try {
    const v = JSON.parse(text);
    return v !== null && typeof v === 'object' && !Array.isArray(v);
  } catch {
    return false;
  }
}
