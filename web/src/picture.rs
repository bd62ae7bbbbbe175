//! A chart's picture on its way from the engine worker (`plot::picture` draws it) to the page,
//! which puts it on the chart's canvas or in a PNG file (`browser::show_picture`). Every other
//! answer of the worker is bytes (`blast_playground::worker`); a picture is an `ImageBitmap`,
//! moved rather than copied, so it travels as `[label, bitmap]`, or `[label, why]` when it
//! could not be drawn. The label is `ChartJob::label`: the canvas's id or the file's name.

use js_sys::Array;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::ImageBitmap;

/// A picture as the page receives it.
pub struct Picture {
    pub label: String,
    /// The picture, or why the worker could not draw it.
    pub drawn: Result<ImageBitmap, NotDrawn>,
}

/// Why the worker drew no picture, in its words: the job unreadable or refused
/// (`ChartJob::drawable`), or the canvas's or plotters' error (`offscreen::DrawError`). Words,
/// because they cross the worker's message as a string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotDrawn(pub String);

impl std::fmt::Display for NotDrawn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The message that carries `label`'s picture (or why there is none), and what to transfer with
/// it (the bitmap).
pub fn message(label: &str, drawn: Result<ImageBitmap, NotDrawn>) -> (Array, Array) {
    let moved = Array::new();
    let body = match drawn {
        Ok(bitmap) => {
            moved.push(&bitmap);
            JsValue::from(bitmap)
        }
        Err(why) => JsValue::from_str(&why.0),
    };
    (Array::of2(&JsValue::from_str(label), &body), moved)
}

/// The picture a worker's message carries, `None` for a message that is not one (bytes).
pub fn read(data: &JsValue) -> Option<Picture> {
    let pair = data.dyn_ref::<Array>().filter(|a| a.length() == 2)?;
    let label = pair.get(0).as_string()?;
    let body = pair.get(1);
    let drawn = match body.as_string() {
        Some(why) => Err(NotDrawn(why)),
        None => Ok(body.dyn_into::<ImageBitmap>().ok()?),
    };
    Some(Picture { label, drawn })
}
