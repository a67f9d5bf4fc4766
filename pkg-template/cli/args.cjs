// A small strict command-line parser: every option is declared (name, whether it takes a value,
// a check), unknown options and extra arguments are errors, and every error is one line.
'use strict';

/** A user error: printed as one line, exit code 2. */
class UsageError extends Error {}

/** A failure while running that is not a bug (the output cannot be written): one line, exit code 1. */
class RunError extends Error {}

/**
 * Parses `argv` against `spec` ({ '--name': { value: 'N' | null, parse(v) -> value } }) and
 * `positionals` (names of the allowed positional arguments, in order; a trailing '...' takes the
 * rest). Returns { options, positionals }.
 */
function parseArgs(argv, spec, positionalNames = []) {
  const options = {};
  const positionals = [];
  const given = new Set();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg.startsWith('--') && arg.length > 2) {
      const eq = arg.indexOf('=');
      const name = eq > 0 ? arg.slice(0, eq) : arg;
      const opt = spec[name];
      if (!opt) throw new UsageError(`unknown option ${name} (see --help)`);
      let value = true;
      if (opt.value) {
        if (eq > 0) value = arg.slice(eq + 1);
        else if (i + 1 < argv.length && !argv[i + 1].startsWith('--')) value = argv[++i];
        else throw new UsageError(`${name} needs a value: ${name} ${opt.value}`);
        value = opt.parse ? opt.parse(value, name) : value;
      } else if (eq > 0) {
        throw new UsageError(`${name} takes no value`);
      }
      const key = opt.key ?? name.slice(2).replace(/-([a-z])/g, (_, c) => c.toUpperCase());
      if (opt.repeat) {
        (options[key] ??= []).push(value);
        continue;
      }
      // the last of two silently winning hides a typo in a long command line
      if (opt.value && given.has(name)) throw new UsageError(`${name} was given twice: it takes one value`);
      given.add(name);
      options[key] = value;
    } else if (arg === '-h') {
      options.help = true;
    } else {
      positionals.push(arg);
    }
  }
  const rest = positionalNames.at(-1) === '...';
  const max = rest ? Infinity : positionalNames.length;
  if (positionals.length > max) {
    throw new UsageError(`unexpected argument ${positionals[max]}${max === 0 ? '' : ` (only ${positionalNames.join(', ')} is taken)`}`);
  }
  return { options, positionals };
}

/** Value checks for the spec. */
const parse = {
  integer: (min, max) => (v, name) => {
    const n = Number(v);
    if (!/^-?\d+$/.test(v) || n < min || n > max) throw new UsageError(`${name} must be an integer from ${min} to ${max}, got '${v}'`);
    return n;
  },
  oneOf:
    (...allowed) =>
    (v, name) => {
      if (!allowed.includes(v)) throw new UsageError(`${name} must be one of ${allowed.join(', ')}, got '${v}'`);
      return v;
    },
};

module.exports = { RunError, UsageError, parseArgs, parse };
