// Cancelling the client's work: a caller's AbortSignal (on consume, fetch, metadata, listOffsets)
// and the client's own close() stop what is in flight the same way, at every wait (a request, a
// backoff, a round). An abort rejects with the signal's reason, as fetch() does; a close ends
// quietly where it can (an iterator returns).

import { KafkaClientError } from './errors.mjs';

/** A caller's `signal` option checked: an AbortSignal, or undefined. */
export function checkSignal(signal, where) {
  if (signal === undefined || signal === null) return undefined;
  if (typeof signal !== 'object' || typeof signal.aborted !== 'boolean' || typeof signal.addEventListener !== 'function') {
    throw new KafkaClientError('INVALID_ARGUMENT', `${where}: option signal must be an AbortSignal`);
  }
  return signal;
}

/** Why `signal` aborted: its reason, or an AbortError when it has none. */
export function reasonOf(signal) {
  return signal.reason ?? Object.assign(new Error('the operation was aborted'), { name: 'AbortError' });
}

/** Throws the reason if `signal` has aborted. */
export function throwIfAborted(signal) {
  if (signal?.aborted) throw reasonOf(signal);
}

// Callbacks waiting on each signal, called by one listener of its own: Node warns
// (MaxListenersExceededWarning) past 10 listeners on one AbortSignal, and the waits of a client's
// calls in flight (a lookup per topic, a request per broker, a backoff) share the client's signal
// and the caller's.
const waiting = new WeakMap();

/**
 * Calls `onAbortFn(reason)` once when `signal` aborts (at once if it has); returns the function that
 * stops listening. No signal: nothing to listen to. However many wait on a signal, it has one listener.
 */
export function onAbort(signal, onAbortFn) {
  if (!signal) return () => {};
  if (signal.aborted) {
    onAbortFn(reasonOf(signal));
    return () => {};
  }
  let waits = waiting.get(signal);
  if (!waits) {
    const callbacks = new Set();
    const listener = () => {
      waiting.delete(signal);
      const reason = reasonOf(signal);
      for (const fn of callbacks) fn(reason);
    };
    waits = { callbacks, listener };
    waiting.set(signal, waits);
    signal.addEventListener('abort', listener, { once: true });
  }
  // a wrapper of its own: the same function may wait twice, and each stop ends one wait
  const entry = (reason) => onAbortFn(reason);
  waits.callbacks.add(entry);
  return () => {
    if (!waits.callbacks.delete(entry) || waits.callbacks.size || waiting.get(signal) !== waits) return;
    waiting.delete(signal);
    signal.removeEventListener('abort', waits.listener);
  };
}

/** `promise`, or a rejection with the reason as soon as `signal` aborts (the work itself is not stopped). */
export function abortable(promise, signal) {
  if (!signal) return promise;
  return new Promise((resolve, reject) => {
    const stop = onAbort(signal, reject);
    promise.then(
      (v) => {
        stop();
        resolve(v);
      },
      (e) => {
        stop();
        reject(e);
      },
    );
  });
}

/** Waits `ms`; an abort rejects at once with its reason and clears the timer. */
export function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    let timer = null;
    const stop = onAbort(signal, (reason) => {
      clearTimeout(timer);
      reject(reason);
    });
    if (signal?.aborted) return;
    timer = setTimeout(() => {
      stop();
      resolve();
    }, ms);
  });
}

/**
 * One signal that aborts when any of `signals` does (undefined ones ignored), with the first
 * one's reason; `dispose()` stops listening to them (the signals given may outlive it).
 */
export function anySignal(...signals) {
  const given = signals.filter(Boolean);
  const controller = new AbortController();
  const stops = [];
  for (const s of given) {
    if (controller.signal.aborted) break;
    stops.push(onAbort(s, (reason) => controller.abort(reason)));
  }
  return { signal: controller.signal, dispose: () => stops.forEach((stop) => stop()) };
}
