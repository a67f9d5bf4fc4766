// The page's value settings (values.js's valueSettings(): key and value formats, the registry's URL,
// a schema given by hand) as the package's ValueDecoder options, for every thread that decodes
// values: the detail pane, the decode worker's previews and the analysis worker's filters.

/**
 * @typedef {{ key: import('../../pkg/web.mjs').ValueFormat, value: import('../../pkg/web.mjs').ValueFormat,
 *   registryUrl: string | null, schema: import('../../pkg/web.mjs').LocalSchema | null }} ValueSettings
 *   the page's value settings (valueSettings()), as they go to the workers
 */

/**
 * ValueDecoder options of `settings`, with how the output is given (`{ int64: 'bigint' }`, `{ json: true }`).
 * @param {ValueSettings} settings
 * @param {Pick<import('../../pkg/web.mjs').ValueDecoderOptions, 'int64' | 'json'>} output
 * @returns {import('../../pkg/web.mjs').ValueDecoderOptions}
 */
export function decoderOptions(settings, output) {
  return {
    key: settings.key,
    value: settings.value,
    registry: settings.registryUrl ? { url: settings.registryUrl } : null,
    valueSchema: settings.schema,
    ...output,
  };
}
