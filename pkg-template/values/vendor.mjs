// The third-party decoders of the value layer (avsc, protobufjs, msgpackr), loaded the first time a
// format needs them, so that the package costs nothing for them until then. They are bundled into
// the package's vendor/ at build time (scripts/vendor/build.mjs): ES modules for browsers and
// bundlers, loaded from here; Node's entry sets loaders of their CommonJS builds (vendor-node.cjs).

const loaders = {
  avro: () => import('../vendor/avsc.mjs').then((m) => m.default),
  protobuf: () => import('../vendor/protobufjs.mjs').then((m) => m.default),
  msgpack: () => import('../vendor/msgpackr.mjs').then((m) => m.default),
};
const loaded = new Map();

/** Node's entry: loaders of the CommonJS builds. */
export function setVendorLoaders(nodeLoaders) {
  Object.assign(loaders, nodeLoaders);
}

/** A promise of library `name` ('avro', 'protobuf' or 'msgpack'), loaded once. */
export function vendor(name) {
  let p = loaded.get(name);
  if (!p) {
    p = loaders[name]();
    loaded.set(name, p);
    p.catch(() => loaded.delete(name)); // a failed load is tried again next time
  }
  return p;
}
