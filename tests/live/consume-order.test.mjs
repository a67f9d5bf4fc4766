// A consume pass over a topic larger than a Fetch response: a broker fills a response with the
// partitions in the order the request names them, up to its byte limit (Tansu does, as KIP-74
// allows), so a pass that always asked in the same order left the last partitions unread until the
// first were read to their end, and ended with NO_PROGRESS on them. Tansu on 127.0.0.1.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { pkg } from '../js/helpers.mjs';
import { produce, startTansu } from './brokers.mjs';

let tansu;

before(async () => {
  tansu = await startTansu();
  await produce(
    tansu,
    {
      topic: 'wide',
      create: { partitions: 4 },
      linger_ms: 50,
      batch_size: 16_384,
      generate: { count: 40_000, value_bytes: 300, partitions: 4, samples: 0 },
    },
    { timeoutMs: 60_000 },
  );
});

after(() => tansu?.stop());

test('every partition is read while the others still have more than a response holds', async () => {
  const client = new pkg.KafkaClient({ bootstrap: tansu.bootstrap });
  try {
    const firstSeen = new Map(); // partition -> the response it first came in
    let responses = 0;
    let records = 0;
    // responses of about 100 KB: each partition holds 30 of them
    const pass = client.consume({
      topic: 'wide',
      untilEnd: true,
      fetchMaxBytes: 100_000,
      partitionMaxBytes: 100_000,
      onResponse: ({ response }) => {
        responses++;
        for (const t of response.topics) for (const p of t.partitions) if (p.recordCount && !firstSeen.has(p.partition)) firstSeen.set(p.partition, responses);
      },
    });
    for await (const chunk of pass) records += chunk.recordCount;
    assert.equal(records, 40_000);
    assert.deepEqual([...firstSeen.keys()].sort(), [0, 1, 2, 3]);
    assert.ok(Math.max(...firstSeen.values()) <= 6, `every partition within the first rounds: ${JSON.stringify([...firstSeen])}`);
  } finally {
    client.close();
  }
});
