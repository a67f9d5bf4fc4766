// The Where filter: a field path on a record's key, value or headers (their JSON, or the data a
// schema decoded them to), compared with a value: `value.customer.id == 42`, `headers.region ~ "eu"`,
// `key exists`, `value.items[0].sku =~ /^A-/i`, clauses joined by && (and) and || (or, looser).
// Parsed once, then evaluated on records as filters see them (record-view.mjs): by the scan's
// workers, the command line's --where and the page's analysis worker.
//
// A number compares with a number or with the digits of one (64-bit integers come as strings in
// the JSON form, and are compared exactly); `~` is "contains, ignoring case"; a path alone asks
// that the field be there and not null or false.

import { rawSkip } from './where-bytes.mjs';

/**
 * A compiled test, with what it needs in the raw bytes: `need` of a clause ({ side, text } or
 * null), `needs` of a conjunction (its clauses' needs) and of the whole (per alternative), and the
 * whole's `skip`.
 * @typedef {((record: any) => boolean) & { need?: { side: string, text: string } | null | false,
 *   needs?: any[], skip?: ((record: any) => boolean) | null }} WhereTest
 */

const ROOTS = ['key', 'value', 'headers', 'topic', 'partition', 'offset', 'timestamp'];
const OPS = ['==', '!=', '>=', '<=', '>', '<', '=~', '~', '='];

/**
 * Parses `source`; returns a test `(record) => boolean`, or throws an Error saying where it is
 * wrong. The test's `needs` says, per alternative (||), the texts its clauses need in a record's
 * raw key or value: [[{ side: 'key' | 'value', text }]] (an alternative with none needs nothing).
 * A record whose bytes hold none of an alternative's texts cannot match it when its key and value
 * are read as JSON or text: `skip(record)` (where-bytes.mjs; null when no alternative needs a text)
 * says so of a record's raw key and value, and scans and the page leave such records unread.
 * @param {string} source
 * @returns {WhereTest}
 */
export function parseWhere(source) {
  const tokens = tokenize(source);
  let at = 0;
  const peek = () => tokens[at];
  const next = () => tokens[at++];
  const fail = (what) => {
    const t = peek();
    throw new Error(`${what} at ${t ? `"${t.text}" (character ${t.pos + 1})` : 'the end'}`);
  };

  function path() {
    const t = next();
    if (!t || t.kind !== 'word' || !ROOTS.includes(t.text)) {
      at--;
      fail(`a field starts with ${ROOTS.join(', ')}`);
    }
    const steps = [t.text];
    for (;;) {
      if (peek()?.text === '.') {
        next();
        const name = next();
        if (!name || (name.kind !== 'word' && name.kind !== 'number')) {
          at--;
          fail('a field name');
        }
        steps.push(name.text);
      } else if (peek()?.text === '[') {
        next();
        const index = next();
        if (!index || (index.kind !== 'number' && index.kind !== 'string')) {
          at--;
          fail('an index or a quoted name');
        }
        steps.push(index.kind === 'number' ? Number(index.text) : index.value);
        if (next()?.text !== ']') {
          at--;
          fail('"]"');
        }
      } else {
        return steps;
      }
    }
  }

  function literal() {
    const t = next();
    if (!t) fail('a value');
    lastLiteral = null;
    if (t.kind === 'number') return { number: t.text };
    if (t.kind === 'string') return (lastLiteral = { string: t.value });
    if (t.kind === 'regex') return { regex: t.value };
    if (t.kind === 'word' && ['true', 'false', 'null'].includes(t.text)) return { constant: JSON.parse(t.text) };
    at--;
    return fail('a number, a "string", true, false, null or a /regex/');
  }

  function clause() {
    const negate = peek()?.text === '!' ? (next(), true) : false;
    const steps = path();
    let test;
    const t = peek();
    lastLiteral = null;
    if (t?.kind === 'word' && t.text === 'exists') {
      next();
      test = (v) => v !== undefined && v !== null;
    } else if (t?.kind === 'op' || (t?.kind === 'word' && (t.text === 'contains' || t.text === 'matches'))) {
      next();
      const op = t.text === 'contains' ? '~' : t.text === 'matches' ? '=~' : t.text === '=' ? '==' : t.text;
      const lit = literal();
      test = comparison(op, lit, fail);
    } else {
      test = (v) => v !== undefined && v !== null && v !== false;
    }
    /** @type {WhereTest} */
    const f = (r) => negate !== test(lookup(r, steps));
    f.need = !negate && needOf(steps, t, lastLiteral);
    return f;
  }

  let lastLiteral = null;
  function conjunction() {
    const parts = [clause()];
    while (peek()?.text === '&&' || (peek()?.kind === 'word' && peek().text === 'and')) {
      next();
      parts.push(clause());
    }
    /** @type {WhereTest} */
    const f = parts.length === 1 ? parts[0] : (r) => parts.every((p) => p(r));
    f.needs = parts.map((p) => p.need).filter(Boolean);
    return f;
  }

  const alternatives = [conjunction()];
  while (peek()?.text === '||' || (peek()?.kind === 'word' && peek().text === 'or')) {
    next();
    alternatives.push(conjunction());
  }
  if (peek()) fail('&&, || or the end');
  /** @type {WhereTest} */
  const test = alternatives.length === 1 ? alternatives[0] : (r) => alternatives.some((p) => p(r));
  test.needs = alternatives.map((a) => a.needs);
  test.skip = rawSkip(test.needs);
  return test;

  /**
   * What a clause needs in the raw bytes: `side.path == "text"` compares the text with a string the
   * bytes hold as they are (or escaped, which a scan checks for). Not for a number's digits (4.2e1
   * is 42) or other comparisons.
   */
  function needOf(steps, op, lit) {
    if (!['key', 'value'].includes(steps[0]) || !(op?.text === '==' || op?.text === '=') || !lit || lit.string === undefined) return null;
    if (!lit.string || NUMBER.test(lit.string.trim()) || ['true', 'false', 'null'].includes(lit.string)) return null;
    return { side: steps[0], text: lit.string };
  }
}

/** The value at `steps` in record `r` (undefined when a step is missing). */
function lookup(r, steps) {
  let v = r[steps[0]];
  for (let k = 1; k < steps.length; k++) {
    if (v === null || v === undefined || typeof v !== 'object') return undefined;
    v = v[steps[k]];
  }
  return v;
}

const INTEGER = /^-?\d+$/;
const NUMBER = /^-?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** -1, 0 or 1 for two numbers given as numbers, bigints or digits (exact for integers); null when either is none. */
function compareNumbers(a, b) {
  const text = (x) => (typeof x === 'number' || typeof x === 'bigint' ? String(x) : typeof x === 'string' && NUMBER.test(x.trim()) ? x.trim() : null);
  const x = text(a);
  const y = text(b);
  if (x === null || y === null) return null;
  if (INTEGER.test(x) && INTEGER.test(y)) {
    const [p, q] = [BigInt(x), BigInt(y)];
    return p < q ? -1 : p > q ? 1 : 0;
  }
  const [p, q] = [Number(x), Number(y)];
  return p < q ? -1 : p > q ? 1 : 0;
}

function comparison(op, lit, fail) {
  if (op === '=~') {
    if (!lit.regex) fail('a /regex/ after =~');
    return (v) => v !== undefined && v !== null && lit.regex.test(typeof v === 'object' ? JSON.stringify(v) : String(v));
  }
  if (lit.regex) fail('=~ before a /regex/');
  if (op === '~') {
    const needle = String(lit.string ?? lit.number ?? lit.constant).toLowerCase();
    return (v) => v !== undefined && v !== null && (typeof v === 'object' ? JSON.stringify(v) : String(v)).toLowerCase().includes(needle);
  }
  const equal = (v) => {
    if ('constant' in lit) return lit.constant === null ? v === null || v === undefined : v === lit.constant;
    if ('number' in lit) return compareNumbers(v, lit.number) === 0;
    return v !== undefined && v !== null && typeof v !== 'object' && String(v) === lit.string;
  };
  if (op === '==') return equal;
  if (op === '!=') return (v) => !equal(v);
  const order = (v) => {
    if ('number' in lit) return compareNumbers(v, lit.number);
    if ('string' in lit && typeof v === 'string') return v < lit.string ? -1 : v > lit.string ? 1 : 0;
    return null;
  };
  const wanted = { '>': (c) => c > 0, '>=': (c) => c >= 0, '<': (c) => c < 0, '<=': (c) => c <= 0 }[op];
  return (v) => {
    const c = order(v);
    return c !== null && wanted(c);
  };
}

function tokenize(source) {
  const tokens = [];
  let i = 0;
  while (i < source.length) {
    const c = source[i];
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const pos = i;
    if (c === '"' || c === "'") {
      let j = i + 1;
      let value = '';
      while (j < source.length && source[j] !== c) {
        if (source[j] === '\\' && j + 1 < source.length) j++;
        value += source[j++];
      }
      if (j >= source.length) throw new Error(`a string without its closing ${c} at character ${pos + 1}`);
      tokens.push({ kind: 'string', value, text: source.slice(pos, j + 1), pos });
      i = j + 1;
    } else if (c === '/' && tokens[tokens.length - 1]?.text === '=~') {
      let j = i + 1;
      while (j < source.length && source[j] !== '/') j += source[j] === '\\' ? 2 : 1;
      if (j >= source.length) throw new Error(`a /regex/ without its closing / at character ${pos + 1}`);
      const flags = /^[a-z]*/.exec(source.slice(j + 1))[0];
      let value;
      try {
        value = new RegExp(source.slice(i + 1, j), flags);
      } catch (e) {
        throw new Error(`${e.message} (character ${pos + 1})`, { cause: e });
      }
      tokens.push({ kind: 'regex', value, text: source.slice(pos, j + 1 + flags.length), pos });
      i = j + 1 + flags.length;
    } else if (/[-\d]/.test(c) && /^-?\d/.test(source.slice(i))) {
      // after a dot, a field named by digits (items.0); else a number
      const text = (tokens[tokens.length - 1]?.text === '.' ? /^\d+/ : /^-?\d+\.?\d*([eE][+-]?\d+)?/).exec(source.slice(i))[0];
      tokens.push({ kind: 'number', text, pos });
      i += text.length;
    } else if (/[A-Za-z_$]/.test(c)) {
      const text = /^[A-Za-z_$][\w$-]*/.exec(source.slice(i))[0];
      tokens.push({ kind: 'word', text, pos });
      i += text.length;
    } else if (source.startsWith('&&', i) || source.startsWith('||', i)) {
      tokens.push({ kind: 'join', text: source.slice(i, i + 2), pos });
      i += 2;
    } else if (OPS.some((op) => source.startsWith(op, i))) {
      const op = OPS.find((o) => source.startsWith(o, i));
      tokens.push({ kind: 'op', text: op, pos });
      i += op.length;
    } else if ('.[]!'.includes(c)) {
      tokens.push({ kind: 'punct', text: c, pos });
      i++;
    } else {
      throw new Error(`"${c}" is not understood (character ${pos + 1})`);
    }
  }
  return tokens;
}
