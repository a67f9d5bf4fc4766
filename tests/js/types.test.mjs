// The package's types as its users meet them: the packed tarball installed into small TypeScript
// projects (CommonJS under node16, ES modules and CommonJS under nodenext, a bundler project), each
// type-checked with tsc, and @arethetypeswrong/cli on the tarball.
import test, { before } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { installPacked, packPackage, root } from './helpers.mjs';

const bin = (name) => path.join(root, 'node_modules/.bin', name);
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'kfd-types-'));
let tarball;

before(() => {
  tarball = packPackage(work);
});

/** A project in `dir` with the package installed from the tarball. */
function project(name, packageJson, tsconfig, files) {
  const dir = path.join(work, name);
  installPacked(tarball, dir);
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name, private: true, ...packageJson }));
  fs.writeFileSync(
    path.join(dir, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { strict: true, noEmit: true, skipLibCheck: false, target: 'es2022', lib: ['es2022', 'dom'], types: [], ...tsconfig } }),
  );
  for (const [file, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, file), text);
  return dir;
}

function tsc(dir) {
  const r = spawnSync(bin('tsc'), ['-p', dir], { encoding: 'utf8' });
  assert.equal(r.status, 0, `tsc in ${path.basename(dir)}:\n${r.stdout}${r.stderr}`);
}

// Checks at the type level: `Equal<A, B>` is true only for the same type.
const CHECKS = `
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false;
declare const frame: Uint8Array;
const res = decodeFetchResponse(frame, { apiVersion: 12 });
const r = res.topics[0].partitions[0].records[0];
const n: Equal<typeof r.offset, number> = true;
const big = decodeFetchResponse(frame, { apiVersion: 12, int64: 'bigint' }).topics[0].partitions[0].records[0].offset;
const b: Equal<typeof big, bigint> = true;
const mode: 'number' | 'bigint' = Math.random() > 0.5 ? 'bigint' : 'number';
const either = decodeFetchResponse(frame, { apiVersion: 12, int64: mode }).topics[0].partitions[0].nextOffset;
const e: Equal<typeof either, number | bigint | null> = true;
const opts: FetchOptions = { apiVersion: 12 };
const declared = new FetchDecoder().decodeFetchResponse(frame, opts).topics[0].partitions[0].highWatermark;
const d: Equal<typeof declared, number | bigint> = true;
const isRecord: boolean = r instanceof KafkaRecord;
const text: string | null = r.valueText();
const header: Uint8Array | null | undefined = r.header('trace-id');
const set = decodeRecordSet(frame);
const count: number = set.recordCount + set.record(0).headers.length;
const { data, transfer } = toTransferable(res);
const again = fromTransferable(data);
const againTopics: number = again.topics.length;
// a MessageEvent's data is any: taken for a fetch response; a record set's data gives a record set
const fromMessage: number = fromTransferable(JSON.parse('{}')).topics.length;
const setAgain: number = fromTransferable(toTransferable(set).data).recordCount;
const name: string = errorName(6);
export { n, b, e, d, isRecord, text, header, count, transfer, again, againTopics, fromMessage, setAgain, name };
const client = new KafkaClient({ relay: 'ws://127.0.0.1:8080/kafka' });
async function tail(): Promise<number> {
  let seen = 0;
  for await (const chunk of client.consume({ topic: 't', from: 'earliest', untilEnd: true })) {
    // numbers by default, as for decodeFetchResponse
    const next: number | null = chunk.nextOffset;
    seen += chunk.records.length + (chunk.records[0]?.offset ?? 0) + (next ?? 0);
  }
  for await (const chunk of client.consume({ topic: 't', decode: { int64: 'bigint' } })) {
    const next: Equal<typeof chunk.nextOffset, bigint | null> = true;
    seen += next ? chunk.recordCount : 0;
  }
  // numbers, or BigInts with int64: 'bigint', as records' int64 values
  const offsets: Map<number, { offset: number; timestamp: number }> = await client.listOffsets('t', { at: 'latest' });
  const exact: Map<number, { offset: bigint; timestamp: bigint }> = await client.listOffsets('t', { at: { time: 0 }, int64: 'bigint' });
  // an AbortSignal on every call; the last N offsets; until; waitFor for tests
  const controller = new AbortController();
  await client.metadata(null, { signal: controller.signal });
  for await (const chunk of client.consume({ topic: 't', from: { last: 10 }, until: { time: Date.now() }, signal: controller.signal })) seen += chunk.recordCount;
  const found = await client.waitFor({ topic: 't', match: (record) => record.keyText() === 'k', timeoutMs: 5000, decode: { int64: 'bigint' } });
  const foundOffset: Equal<typeof found.record.offset, bigint> = true;
  const partitions: number[] = (await client.metadata('t')).topics[0].partitions[0].offlineReplicas;
  return seen + offsets.size + exact.size + found.partition + (foundOffset ? partitions.length : 0);
}
const failed = (e: unknown): string | null => (e instanceof KafkaClientError ? e.code : null);
// the cluster beside the records: groups and their lag, waiting for a group, configs, brokers
async function cluster(): Promise<number> {
  const groups: (string | null)[] = (await client.listGroups()).map((g) => g.state);
  const group = await client.describeGroup('g', { topics: ['t'], lagTime: false });
  const lag: number | null = group.partitions[0].lag;
  const member: string | undefined = group.members?.[0]?.memberId;
  const caughtUp: number = (await client.waitForLag({ group: 'g', topics: ['t'], maxLag: 0, timeoutMs: 1000 })).lag;
  const source: string = (await client.configs({ topic: 't' })).configs[0].source;
  const brokerConfigs: number = (await client.configs({ broker: 1, synonyms: true })).configs.length;
  const via: 'DescribeCluster' | 'Metadata' = (await client.brokers()).via;
  return groups.length + (lag ?? 0) + (member?.length ?? 0) + caughtUp + source.length + brokerConfigs + via.length + group.totalLag;
}
export { tail, failed, cluster };
// keys and values as data: a ValueDecoder, or its options, for consume; a record's decoded sides
const values = new ValueDecoder({ registry: { url: 'http://127.0.0.1:8081', token: 't' }, value: 'auto', valueSchema: { avro: { type: 'string' } } });
async function decodedText(): Promise<string> {
  for await (const chunk of client.consume({ topic: 't', values })) {
    const v = chunk.records[0]?.decodedValue;
    if (v && v.format !== 'bytes') return \`\${v.format} \${v.schemaId ?? ''} \${JSON.stringify(jsonForm(v.value))}\`;
  }
  for await (const chunk of client.consume({ topic: 't', values: { key: 'text', json: true } })) return chunk.records[0]?.decodedKey?.format ?? '';
  const one = await values.decode(r);
  const code: string | undefined = one.value.errorCode;
  return code ?? one.key.tried?.[0]?.format ?? one.key.format;
}
const subjects: Promise<{ subject: string; version: number }[]> = new RegistryClient({ url: 'http://x' }).versionsOf(1);
export { decodedText, subjects };
// a misspelt option is an error, at the top and in the options inside (each line must fail to compile)
// @ts-expect-error
decodeFetchResponse(frame, { apiVersion: 12, crcc: 'skip' });
// @ts-expect-error
decodeRecordSet(frame, { int46: 'bigint' });
// @ts-expect-error
new FetchDecoder().decodeFetchResponse(frame, { apiVersion: 12, transiant: true });
// @ts-expect-error
new FetchDecoder().decodeRecordSet(frame, { fetchOfset: 3 });
// @ts-expect-error
void client.listOffsets('t', { att: 'latest' });
// @ts-expect-error
void client.consume({ topic: 't', untilend: true });
// @ts-expect-error
void client.consume({ topic: 't', decode: { crc: 'report', includeControlRecord: true } });
// @ts-expect-error
void client.consume({ topic: 't', values: { valeu: 'avro' } });
// @ts-expect-error
void client.waitFor({ topic: 't', timeout: 5000 });
// @ts-expect-error
void client.waitFor({ topic: 't', decode: { int46: 'bigint' } });
// every real option still compiles, a ValueDecoder too
void client.consume({ topic: 't', values: new ValueDecoder(), decode: { crc: 'report', includeControlRecords: true }, onWait: ({ partitions }) => partitions.length });
`;

// Node entries only: the relay
const NODE_CHECKS = `
const relayUrl: Promise<string> = startRelay({ bootstrap: '127.0.0.1:9092', allowOrigins: ['http://localhost:5173'] }).then((relay) => relay.relayUrl);
export { relayUrl };
`;

test('CommonJS project, moduleResolution node16: require() and the named exports, no default', () => {
  tsc(
    project(
      'cjs-node16',
      {},
      { module: 'node16', moduleResolution: 'node16' },
      {
        'index.ts': `import { decodeFetchResponse, decodeRecordSet, FetchDecoder, FetchOptions, KafkaRecord, toTransferable, fromTransferable, errorName, init, KafkaClient, KafkaClientError, startRelay, ValueDecoder, RegistryClient, jsonForm } from 'kafka-fetch-decoder';
void init();
${CHECKS}${NODE_CHECKS}`,
      },
    ),
  );
});

test('ES module project, nodenext: named imports and the default export init', () => {
  tsc(
    project(
      'esm-nodenext',
      { type: 'module' },
      { module: 'nodenext', moduleResolution: 'nodenext' },
      {
        'index.ts': `import init, { decodeFetchResponse, decodeRecordSet, FetchDecoder, type FetchOptions, KafkaRecord, toTransferable, fromTransferable, errorName, KafkaClient, KafkaClientError, startRelay, ValueDecoder, RegistryClient, jsonForm } from 'kafka-fetch-decoder';
await init();
${CHECKS}${NODE_CHECKS}`,
      },
    ),
  );
});

test('CommonJS project under nodenext', () => {
  tsc(
    project(
      'cjs-nodenext',
      { type: 'commonjs' },
      { module: 'nodenext', moduleResolution: 'nodenext' },
      {
        'index.cts': `import { decodeFetchResponse, decodeRecordSet, FetchDecoder, FetchOptions, KafkaRecord, toTransferable, fromTransferable, errorName, KafkaClient, KafkaClientError, startRelay, ValueDecoder, RegistryClient, jsonForm } from 'kafka-fetch-decoder';
${CHECKS}${NODE_CHECKS}`,
      },
    ),
  );
});

test('with the Node types loaded, keys and values are Buffers', () => {
  tsc(
    project(
      'node-types',
      { type: 'module' },
      { module: 'nodenext', moduleResolution: 'nodenext', types: ['node'], typeRoots: [path.join(root, 'node_modules/@types')] },
      {
        'index.ts': `import { decodeFetchResponse } from 'kafka-fetch-decoder';
import { readFileSync } from 'node:fs';
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false;
const r = decodeFetchResponse(readFileSync('frame.bin'), { apiVersion: 12 }).topics[0].partitions[0].records[0];
const isBuffer: Equal<typeof r.key, Buffer | null> = true;
export const key: string | undefined = r.key?.toString('base64');
export { isBuffer };
`,
      },
    ),
  );
});

test('bundler project: the web entry with its default init(URL)', () => {
  tsc(
    project(
      'bundler',
      { type: 'module' },
      { module: 'esnext', moduleResolution: 'bundler' },
      {
        'index.ts': `import init, { decodeFetchResponse, decodeRecordSet, FetchDecoder, type FetchOptions, KafkaRecord, toTransferable, fromTransferable, errorName, KafkaClient, KafkaClientError, ValueDecoder, RegistryClient, jsonForm } from 'kafka-fetch-decoder';
import * as everything from 'kafka-fetch-decoder';
await init(new URL('https://example.invalid/kafka_fetch_decoder_bg.wasm'));
// the .wasm subpath, as the README's esbuild line imports it (its URL)
import wasmUrl from 'kafka-fetch-decoder/kafka_fetch_decoder_bg.wasm';
await init(wasmUrl);
// the relay runs in Node only: the browser entry has none
// @ts-expect-error
void everything.startRelay;
${CHECKS}`,
      },
    ),
  );
});

test('@arethetypeswrong/cli finds no problem in the packed tarball', () => {
  // every entrypoint of "exports" (the .wasm subpath, /arrow and /scan-worker at the package root
  // too, so that node10 resolution, which ignores "exports", finds them and their declarations)
  const manifest = JSON.parse(fs.readFileSync(path.join(root, 'pkg/package.json'), 'utf8'));
  const entries = Object.keys(manifest.exports)
    .filter((e) => e !== './package.json')
    .map((e) => (e === '.' ? '.' : e.slice(2)));
  assert.deepEqual(entries, ['.', 'arrow', 'scan-worker', 'kafka_fetch_decoder_bg.wasm']);
  const r = spawnSync(bin('attw'), [tarball, '--format', 'ascii', '--entrypoints', ...entries], { encoding: 'utf8' });
  assert.equal(r.status, 0, `${r.stdout}${r.stderr}`);
  assert.match(r.stdout, /No problems found/);
});
