// The page's value settings (values.js's valueSettings(): key and value formats, the registry's URL,
// a schema given by hand) as the package's ValueDecoder options, for every thread that decodes
// values: the detail pane, the decode worker's previews and the analysis worker's filters.

/** ValueDecoder options of `settings`, with how the output is given (`{ int64: 'bigint' }`, `{ json: true }`). */
export function decoderOptions(settings, output) {
  return {
    key: settings.key,
    value: settings.value,
    registry: settings.registryUrl ? { url: settings.registryUrl } : null,
    valueSchema: settings.schema,
    ...output,
  };
}
