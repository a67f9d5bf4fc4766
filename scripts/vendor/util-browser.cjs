// The parts of Node's util that avsc calls, for its browser build.
'use strict';
module.exports = {
  inherits(ctor, parent) {
    Object.setPrototypeOf(ctor.prototype, parent.prototype);
    Object.setPrototypeOf(ctor, parent);
  },
  format(f, ...args) {
    let i = 0;
    const s = String(f).replace(/%[sdj%]/g, (m) => (m === '%%' ? '%' : i < args.length ? (m === '%j' ? JSON.stringify(args[i++]) : String(args[i++])) : m));
    return [s, ...args.slice(i)].join(' ');
  },
  deprecate: (fn) => fn,
  debuglog: () => () => {},
};
