// Several topics at once for consume and capture: the names given (--topic, repeatable) and those a
// --topic-regex matches in the cluster's metadata, then one consume pass per topic, their chunks
// handed out as they come.
'use strict';

const { UsageError } = require('./args.cjs');
const { printable } = require('../lib.cjs');

/** --topic-regex as a RegExp matched against whole names (as Java's subscribe(Pattern) does). */
function topicRegex(text) {
  if (text === undefined) return null;
  try {
    return new RegExp(`^(?:${text})$`);
  } catch (e) {
    throw new UsageError(`--topic-regex ${text}: not a regular expression (${e.message})`);
  }
}

/**
 * The topics to read, in the order given, then the regex's matches sorted by name (internal topics
 * left out, as Java consumers leave them out of pattern subscriptions). A regex that matches no
 * topic is an error: a typo would otherwise wait forever on nothing.
 */
async function chosenTopics(client, names, regex) {
  const topics = [...new Set(names)];
  if (regex) {
    const md = await client.metadata();
    const matched = md.topics
      .filter((t) => t.topic !== null && t.errorCode === 0 && !t.isInternal && regex.test(t.topic))
      .map((t) => t.topic)
      .sort();
    if (!matched.length) throw new UsageError(`--topic-regex ${regex.source.slice(4, -2)} matches none of the cluster's ${md.topics.length} topics`);
    for (const t of matched) if (!topics.includes(t)) topics.push(t);
  }
  return topics;
}

/** How the topics are named in a message: the one, or the first few and a count. */
function topicsLabel(topics) {
  const shown = topics
    .slice(0, 3)
    .map((t) => printable(t))
    .join(',');
  return topics.length > 3 ? `${shown},... (${topics.length} topics)` : shown;
}

/**
 * The values of several async iterators as they come. The next value of one is asked for only once
 * the caller has taken its last one (a consume chunk's records are its own until then); an error
 * in one ends them all, and so does the caller stopping.
 */
async function* merged(iterables) {
  if (iterables.length === 1) {
    yield* iterables[0];
    return;
  }
  const iterators = iterables.map((it) => it[Symbol.asyncIterator]());
  const next = (i) => iterators[i].next().then((result) => ({ i, result }));
  const waiting = new Map(iterators.map((_, i) => [i, next(i)]));
  try {
    while (waiting.size) {
      const { i, result } = await Promise.race(waiting.values());
      if (result.done) {
        waiting.delete(i);
        continue;
      }
      yield result.value;
      waiting.set(i, next(i));
    }
  } finally {
    // the others are told to stop, not waited for (one may be inside a round: the caller's
    // close() ends it); an error of theirs at this point adds nothing
    for (const it of iterators) it.return?.().catch(() => {});
  }
}

module.exports = { chosenTopics, merged, topicRegex, topicsLabel };
