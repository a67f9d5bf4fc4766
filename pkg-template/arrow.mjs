// The Arrow entry for browsers and bundlers: `import { toArrow } from 'kafka-fetch-decoder/arrow'`
// brings flechette (vendor/) with it; the main entry never loads it.
import * as flechette from './vendor/flechette.mjs';
import { setArrowLibrary } from './columns/library.mjs';

setArrowLibrary(flechette.default ?? flechette);

export * from './columns/public.mjs';
