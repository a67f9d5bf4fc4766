// The scan's parts the command line and the worker threads use (not the package's API: that is
// KafkaClient.scan).
export { AGGREGATES, makeAggregates } from './aggregates.mjs';
export { Coverage, COVERAGE_FORMAT, readCoverage } from './coverage.mjs';
export { LatestPerKey } from './latest.mjs';
export { makeMatcher } from './matcher.mjs';
export { murmur2, partitionOfKey } from './partitioner.mjs';
export { planJson, planScan, readPlan, shardOf } from './plan.mjs';
export { ScanRun } from './run.mjs';
export { shardSpec, startingPoint } from './scan.mjs';
export { commonSession, librarySession, matchesTable, rangeConsumeOptions } from './session.mjs';
export { ScanWorker } from './worker-core.mjs';
