// What the live bar's controls ask (the relay's URL, the partitions, From, Until, Keep and a scan's
// options) with the first problem found; the relay's URL filled in and remembered; and a relay's or
// a broker's error in words a user can act on.

import { readFrom, readUntil } from './live-seek.js';
import { scanOptions } from './live-scan.js';
import { $ } from '../page.js';

const RELAY_KEY = 'kafka-fetch-decoder.relay'; // the last relay URL typed, remembered in this browser

/**
 * What the controls ask of a tail or a scan: the relay's URL (null: none valid), the partitions
 * (null: all; undefined: they do not parse), From, Until, Keep, a scan's options (a tail: null),
 * and the first problem found (null: none).
 * @typedef {object} Controls
 * @property {string | null} relay
 * @property {string} topic
 * @property {number[] | null | undefined} partitions
 * @property {import('./live-seek.js').From} from
 * @property {import('./live-seek.js').Until} until
 * @property {number} cap
 * @property {import('./live-scan.js').ScanChoice | null} scan
 * @property {string | null} [problem]
 */
/**
 * An error as explain() reads it: the decode worker's or the page's own (a message only).
 * @typedef {Pick<import('../../shared/decode-protocol.js').WorkerError, 'message'>
 *   & Partial<import('../../shared/decode-protocol.js').WorkerError>} LiveError
 */

/**
 * Remembers the relay's URL in this browser, for the next visit.
 * @param {string} relay
 */
export function rememberRelay(relay) {
  try {
    localStorage.setItem(RELAY_KEY, relay);
  } catch {
    /* storage may be off */
  }
}

/**
 * Fills in the relay's URL: the one of `kafka-fetch-decoder ui` when it serves the page (`ui`, its
 * /ui.json; then true), else the last one typed in this browser.
 * @param {{ relayPath?: string, bootstrap?: string }} ui
 */
export function fillRelay(ui) {
  if (ui.relayPath) {
    $('live-relay').value = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}${ui.relayPath}`;
    $('live-relay').title = `The relay of kafka-fetch-decoder ui${ui.bootstrap ? `, to ${ui.bootstrap}` : ''}`;
    return true;
  }
  try {
    $('live-relay').value ||= localStorage.getItem(RELAY_KEY) ?? '';
  } catch {
    /* storage may be off */
  }
  return false;
}

/** The relay's URL as typed (marked invalid when it is no ws: or wss: URL), or null. */
export function relayUrl() {
  const text = $('live-relay').value.trim();
  const ok = /^wss?:\/\/[^/\s]+/i.test(text);
  $('live-relay').setAttribute('aria-invalid', String(!ok && text !== ''));
  return ok ? text : null;
}

/** "0,2,5-7" -> [0, 2, 5, 6, 7]; empty = every partition (null); undefined when it does not parse. */
function chosenPartitions() {
  const input = $('live-partitions');
  const text = input.value.trim();
  if (!text || text === 'all') {
    input.removeAttribute('aria-invalid');
    return null;
  }
  /** @type {Set<number>} */
  const out = new Set();
  for (const part of text.split(/\s*,\s*/)) {
    const range = /^(\d+)(?:\s*-\s*(\d+))?$/.exec(part);
    if (!range || Number(range[2] ?? range[1]) < Number(range[1]) || Number(range[2] ?? range[1]) - Number(range[1]) > 100_000) {
      input.setAttribute('aria-invalid', 'true');
      return undefined;
    }
    for (let p = Number(range[1]); p <= Number(range[2] ?? range[1]); p++) out.add(p);
  }
  input.removeAttribute('aria-invalid');
  return [...out].sort((a, b) => a - b);
}

/**
 * What the controls ask of a tail or a scan (`what`: 'tail' or 'scan'; `topic`: the one typed unless
 * said), with the first problem found.
 * @param {'tail' | 'scan'} what
 * @param {string} [topic]
 */
export function readControls(what, topic = $('live-topic').value.trim()) {
  const now = Date.now();
  /** @type {Controls} */
  const asked = {
    relay: relayUrl(),
    topic,
    partitions: chosenPartitions(),
    from: readFrom(now),
    until: readUntil(now),
    cap: Number($('live-cap').value),
    scan: what === 'scan' ? scanOptions() : null,
  };
  const { relay, partitions, from, until, cap, scan } = asked;
  asked.problem = !relay
    ? "Type the relay's WebSocket URL first, e.g. ws://127.0.0.1:8081/kafka."
    : !topic
      ? `Choose a topic to ${what} (List topics shows them).`
      : partitions === undefined
        ? 'Partitions are numbers and ranges, e.g. 0,2,5-7 (empty for all).'
        : (from.error ?? until.error ?? scan?.error ?? (!(Number.isInteger(cap) && cap > 0) ? 'Keep at least 1 record.' : null));
  return asked;
}

/**
 * An error of the relay, the broker or the tail in words a user can act on.
 * @param {LiveError} error
 * @param {string | null} relay
 */
export function explain({ code, message }, relay) {
  const refused = /origin (\S+) is not allowed/.exec(message);
  if (refused) {
    return `The relay refused this page: origin ${refused[1]} is not allowed. Start the relay with --allow-origin ${location.origin}, or use the page that kafka-fetch-decoder ui serves.`;
  }
  if (/cannot reach the relay/.test(message)) {
    return `No relay answers at ${relay}: start one with kafka-fetch-decoder ui (or relay), or check the URL.`;
  }
  if (code === 'UNKNOWN_TOPIC') return `Unknown topic: ${message}.`;
  if (code === 'CONNECTION' || code === 'TIMEOUT') return `The broker cannot be reached: ${message}.`;
  if (code === 'OFFSET_OUT_OF_RANGE') return `${message}. Start at earliest or latest instead.`;
  return code ? `${code}: ${message}` : message;
}
