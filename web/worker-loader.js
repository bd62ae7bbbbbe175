// Starts the engine worker (web/src/worker.rs) inside its Web Worker: loads wasm-bindgen's
// no-modules glue, then the module, both beside this file. Written here instead of Trunk's
// `data-loader-shim`, whose call passes the module path the way wasm-bindgen 0.2.130 warns
// about on the console ("deprecated parameters for the initialization function").
importScripts('./blast-worker.js');
wasm_bindgen({ module_or_path: './blast-worker_bg.wasm' });
