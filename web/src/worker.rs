//! The engine worker: a second wasm module, started by the page in a dedicated Web Worker
//! (Trunk builds it from `index.html`'s `data-type="worker"` link), that reads large scenario
//! texts off the page's main thread, runs scenarios' lanes and model replays
//! (`lane_host::Host`) and draws the live charts (`plot`). Each message is bytes (a text to
//! read, commands, or a chart to draw); the answer goes back as bytes, or as a picture
//! (`picture`), its buffer transferred rather than copied. It links the engine, the
//! playground's engine side and the charts' drawing: no Yew.

use std::cell::RefCell;

use blast_playground::worker::chart_wire;
use blast_playground::worker::lane_host::Host;
use blast_playground::worker::offload;
use blast_web::picture::{self, NotDrawn};
use blast_web::plot;
use js_sys::{Array, Uint8Array};
use wasm_bindgen::{closure::Closure, JsCast, JsValue};
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

fn main() {
    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let replies = scope.clone();
    let host = RefCell::new(Host::default());
    let on_job = Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
        let job = Uint8Array::new(&e.data()).to_vec();
        if chart_wire::is_chart(&job) {
            return draw(&replies, &job);
        }
        let reply = Uint8Array::from(host.borrow_mut().answer(&job, &js_sys::Date::now).as_slice());
        let _ = replies.post_message_with_transfer(&reply, &Array::of1(&reply.buffer()));
    });
    scope.set_onmessage(Some(on_job.as_ref().unchecked_ref()));
    // The handler lives as long as the worker.
    on_job.forget();
    // Messages posted before this point would have found no handler: the page waits for this.
    let _ = scope.post_message(&JsValue::from_str(offload::READY));
}

/// Draw a chart job and post its picture (or why there is none).
fn draw(replies: &DedicatedWorkerGlobalScope, bytes: &[u8]) {
    let (label, drawn) = match chart_wire::decode(bytes) {
        Ok(job) => (job.label().to_string(), plot::picture(&job).map_err(|e| NotDrawn(e.to_string()))),
        Err(e) => (String::new(), Err(NotDrawn(format!("the chart's job is unreadable ({e})")))),
    };
    let (message, moved) = picture::message(&label, drawn);
    let _ = replies.post_message_with_transfer(&message, &moved);
}
