// DuckDB-wasm's module imports apache-arrow for calls the page never makes (sql-engine.js uses
// Arrow IPC bytes only); index.html's import map points that import here.
export {};
