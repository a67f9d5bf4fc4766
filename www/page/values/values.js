// Keys and values as data: the page's value settings (a format per side, a registry, a local schema
// file), the decoder of the record the detail pane shows, and that pane's Decoded view. The table's
// previews come from the workers, which decode with the same settings (worker-values.js).
//
// The registry: `kafka-fetch-decoder ui --schema-registry URL` serves it read-only at /registry
// (its /ui.json says so), else a URL typed here (a relay's /registry; a registry that allows this
// page's origin). Schema files: an .avsc, or a .proto with the message type of the values.

import { h } from '../dom.js';
import { VALUE_FORMAT_NAMES } from '../kafka.js';
import { loadPackage } from '../store.js';
import { valueTree } from './tree.js';
import { $ } from '../page.js';
import { decoderOptions } from '../../shared/value-settings.js';

const REGISTRY_KEY = 'kafka-fetch-decoder.registry';

/** @typedef {import('../../shared/value-settings.js').ValueSettings} ValueSettings the workers and the detail pane decode with them */

/**
 * A schema file given here: an Avro schema (its JSON, parsed), or a .proto's text with its message
 * types and the one the values are.
 * @typedef {{ name: string, avro: unknown, protobuf?: undefined }
 *   | { name: string, avro?: undefined, protobuf: { source: string, types: string[], type: string } }} SchemaFile
 */

/** @type {SchemaFile | null} */
let schema = null; // { name, avro } | { name, protobuf: { source, types, type } }
/** @type {{ text: string, decoder: import('../../../pkg/web.mjs').ValueDecoder } | null} */
let detailDecoder = null; // { text: settings as JSON, decoder } for the detail pane
let onChange = () => {};

/**
 * Sets up the value controls. `page`: { uiConfig (a promise of /ui.json), changed() (the settings
 * changed: an open file is decoded again) }.
 * @param {{ uiConfig: Promise<{ registryPath?: string }>, changed: () => void }} page
 */
export function initValues(page) {
  onChange = page.changed;
  for (const id of /** @type {const} */ (['val-key', 'val-value'])) $(id).addEventListener('change', () => onChange());
  $('val-registry').addEventListener('change', () => {
    remember($('val-registry').value.trim());
    onChange();
  });
  const schemaInput = $('val-schema');
  schemaInput.addEventListener('change', async () => {
    const file = schemaInput.files[0];
    schemaInput.value = '';
    if (file) await openSchema(file);
  });
  $('val-type').addEventListener('change', () => {
    if (schema?.protobuf) schema.protobuf.type = $('val-type').value;
    onChange();
  });
  $('val-schema-clear').addEventListener('click', () => {
    schema = null;
    showSchema();
    onChange();
  });
  page.uiConfig.then((ui) => {
    if (ui.registryPath) {
      $('val-registry').value = `${location.origin}${ui.registryPath}`;
      $('val-registry').readOnly = true;
      $('val-registry').title = 'The registry of kafka-fetch-decoder ui (--schema-registry), read through it';
      // a registry is there: decode by default
      for (const id of /** @type {const} */ (['val-key', 'val-value'])) $(id).value = 'auto';
      onChange();
    } else {
      try {
        $('val-registry').value ||= localStorage.getItem(REGISTRY_KEY) ?? '';
      } catch {
        /* storage may be off */
      }
    }
  });
  showSchema();
}

/** @param {string} url */
function remember(url) {
  if ($('val-registry').readOnly) return;
  try {
    localStorage.setItem(REGISTRY_KEY, url);
  } catch {
    /* storage may be off */
  }
}

/**
 * The value settings for the workers and the detail pane, or null when nothing is decoded.
 * @returns {ValueSettings | null}
 */
export function valueSettings() {
  if (!$('val-key').options.length) return null; // the menus are filled once the package is loaded
  // the menus' options are the package's VALUE_FORMATS (app.js fills them)
  const key = /** @type {import('../../../pkg/web.mjs').ValueFormat} */ ($('val-key').value);
  const value = /** @type {import('../../../pkg/web.mjs').ValueFormat} */ ($('val-value').value);
  if (key === 'bytes' && value === 'bytes') return null;
  const registryUrl = /^https?:\/\/\S+$/i.test($('val-registry').value.trim()) ? $('val-registry').value.trim() : null;
  let valueSchema = null;
  if (schema?.avro !== undefined) valueSchema = { avro: schema.avro };
  else if (schema?.protobuf?.type) valueSchema = { protobuf: { source: schema.protobuf.source, type: schema.protobuf.type } };
  return { key, value, registryUrl, schema: valueSchema };
}

/**
 * A schema file dropped or chosen: an .avsc (JSON), or a .proto, whose message types fill the type menu.
 * @param {File} file
 * @returns {Promise<boolean>} whether it is taken
 */
export async function openSchema(file) {
  const text = await file.text();
  if (/\.proto$/i.test(file.name) || /^\s*(syntax|package|message|import)\b/m.test(text)) {
    let types;
    try {
      types = await (await loadPackage()).protobufMessageTypes(text);
    } catch (e) {
      return schemaError(`${file.name} does not parse as .proto: ${e.message}`);
    }
    if (!types.length) return schemaError(`${file.name} declares no message type`);
    schema = { name: file.name, protobuf: { source: text, types, type: types[0] } };
  } else {
    try {
      schema = { name: file.name, avro: JSON.parse(text) };
    } catch (e) {
      return schemaError(`${file.name} is neither an Avro schema (JSON: ${e.message}) nor a .proto`);
    }
  }
  // a schema given is a schema meant: decode the values with it
  if ($('val-value').value === 'bytes') $('val-value').value = 'auto';
  showSchema();
  onChange();
  return true;
}

/** @param {string} message */
function schemaError(message) {
  $('val-schema-name').textContent = message;
  $('val-schema-name').dataset.error = '';
  return false;
}

function showSchema() {
  const name = $('val-schema-name');
  delete name.dataset.error;
  name.textContent = schema ? schema.name : 'none';
  $('val-schema-clear').hidden = !schema;
  const types = schema?.protobuf?.types ?? [];
  $('val-type').hidden = !types.length;
  $('val-type').replaceChildren(...types.map((t) => h('option', { value: t, selected: t === schema.protobuf.type }, t)));
}

// ---- the detail pane ------------------------------------------------------------------------------

/**
 * The record's key and value decoded with the page's settings (64-bit integers exact), or null when off.
 * @param {Pick<import('../../../pkg/web.mjs').KafkaRecord<import('../../../pkg/web.mjs').Int64>, 'key' | 'value' | 'headers'>} record
 */
export async function decodeRecord(record) {
  const settings = valueSettings();
  if (!settings) return null;
  const text = JSON.stringify(settings);
  if (detailDecoder?.text !== text) {
    const api = await loadPackage();
    detailDecoder = {
      text,
      decoder: new api.ValueDecoder(decoderOptions(settings, { int64: 'bigint' })),
    };
  }
  return detailDecoder.decoder.decode(record);
}

/**
 * The Decoded view of one side: what it decoded as (format, schema, subject, type), and the data as a tree.
 * @param {import('../../../pkg/web.mjs').DecodedSide<import('../../../pkg/web.mjs').Int64>} d
 */
export function decodedView(d) {
  const facts = [h('span', { class: 'badge format' }, VALUE_FORMAT_NAMES[d.format] ?? d.format)];
  if (d.messageType) facts.push(h('span', { class: 'mono' }, d.messageIndexes ? `${d.messageType} [${d.messageIndexes.join(', ')}]` : d.messageType));
  if (d.schemaId !== undefined) facts.push(h('span', {}, `schema ${d.schemaId}${d.registry === 'apicurio' ? ' (Apicurio global id)' : ''}`));
  if (d.guid !== undefined) facts.push(h('span', {}, `schema ${d.guid}`));
  const subject = h('span', { class: 'subject' });
  if (d.schemaId !== undefined && detailDecoder?.decoder.registry) {
    facts.push(subject);
    detailDecoder.decoder.registry.versionsOf(d.schemaId).then(
      (versions) => {
        subject.textContent = versions.map((v) => `${v.subject} v${v.version}`).join(', ');
      },
      () => {
        subject.textContent = '';
      },
    );
  }
  const body = [];
  if (d.format === 'bytes') {
    const reasons = d.error ? [d.error] : (d.tried ?? []).map((t) => `${t.format}: ${t.error}`);
    body.push(
      h('p', { class: 'notice' }, reasons.length ? 'Not decoded; the bytes are shown in the other views.' : 'Bytes (no format applies).'),
      reasons.length &&
        h(
          'ul',
          { class: 'reasons' },
          reasons.map((r) => h('li', {}, r)),
        ),
    );
  } else if (d.format === 'text') {
    body.push(
      h('pre', { class: 'view' }, /** @type {string} */ (d.value)), // text decodes as a string
      d.invalidUtf8At !== undefined && h('p', { class: 'notice' }, `Not valid UTF-8 from byte ${d.invalidUtf8At}: invalid bytes show as \uFFFD.`),
    );
  } else {
    body.push(valueTree(d.value));
  }
  return h('div', { class: 'decoded' }, h('div', { class: 'decoded-facts' }, facts), body);
}
