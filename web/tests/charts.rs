//! The live charts' pictures end to end on the page's thread: the worker's drawing
//! (`plot::picture`; a window's `OffscreenCanvas` draws as a worker's does), the message that
//! carries a picture (`picture::message`, `picture::read`), and where the page puts it
//! (`browser::show_picture`).

mod common;

use blast_playground::charts::{BarPanel, ChartColours, ChartData, Line, Rgb};
use blast_playground::worker::chart_wire::{Chart, ChartJob, Destination};
use blast_web::picture::{self, NotDrawn};
use blast_web::{browser, plot};
use common::*;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

wasm_bindgen_test_configure!(run_in_browser);

fn job(chart: Chart, colours: ChartColours) -> ChartJob {
    ChartJob {
        chart,
        destination: Destination::Canvas,
        data: ChartData {
            x_desc: "virtual time (ms)".into(),
            y_desc: "ops/ms (log scale)".into(),
            y_unit: "ops/ms".into(),
            x_max: 10.0,
            lines: vec![Line {
                label: "global".into(),
                colour: 0,
                points: vec![(1.0, 0.5), (5.0, 0.05), (10.0, 2.0)],
                marks: vec![5.0],
                deopts: vec![],
                same_as: None,
            }],
            panels: vec![BarPanel { label: "global".into(), bars: vec![(0.0, 5.0, 3, 2, 1)] }],
        },
        window: (0.0, 10.0),
        colours,
        size_px: (320, 180),
        scale: 1.0,
    }
}

/// The pixels of a canvas showing a picture, as (r, g, b, a) bytes.
fn pixels(canvas: &HtmlCanvasElement) -> Vec<u8> {
    let copy: HtmlCanvasElement = document().create_element("canvas").unwrap().unchecked_into();
    copy.set_width(canvas.width());
    copy.set_height(canvas.height());
    let context: CanvasRenderingContext2d = copy.get_context("2d").unwrap().unwrap().unchecked_into();
    context.draw_image_with_html_canvas_element(canvas, 0.0, 0.0).unwrap();
    context.get_image_data(0.0, 0.0, f64::from(canvas.width()), f64::from(canvas.height())).unwrap().data().0
}

#[wasm_bindgen_test]
fn each_chart_is_drawn_at_its_jobs_size_in_its_colours_and_shown_on_its_canvas() {
    let root = fresh_root();
    for (chart, background) in [(Chart::Throughput, Rgb(10, 20, 30)), (Chart::Relinks, Rgb(250, 240, 230))] {
        let mut colours = ChartColours::from_vars(|_| None, true);
        colours.background = background;
        let job = job(chart, colours);
        let bitmap = plot::picture(&job).expect("the chart is drawn");
        assert_eq!((bitmap.width(), bitmap.height()), job.size_px);

        let (message, moved) = picture::message(job.label(), Ok(bitmap));
        assert_eq!(moved.length(), 1, "the bitmap is moved with its message, not copied");
        let carried = picture::read(&message).expect("a picture");
        assert_eq!(carried.label, chart.canvas_id());

        let canvas: HtmlCanvasElement = document().create_element("canvas").unwrap().unchecked_into();
        canvas.set_id(chart.canvas_id());
        root.append_child(&canvas).unwrap();
        browser::show_picture(&carried.label, &carried.drawn.expect("drawn")).expect("shown");
        assert_eq!((canvas.width(), canvas.height()), job.size_px, "the canvas takes the picture's pixels");
        let shown = pixels(&canvas);
        assert_eq!(&shown[..3], &[background.0, background.1, background.2], "the corner is the chart's background");
        let other = shown.chunks(4).filter(|p| p[..3] != [background.0, background.1, background.2]).count();
        assert!(other > 500, "{chart:?}: axes, labels and data are drawn ({other} pixels not background)");
    }
    root.remove();
}

#[wasm_bindgen_test]
fn a_chart_not_drawn_travels_as_its_words_and_other_messages_are_not_pictures() {
    let empty = ChartJob { size_px: (0, 180), ..job(Chart::Relinks, ChartColours::from_vars(|_| None, false)) };
    let refused = plot::picture(&empty).err().map(|e| e.to_string());
    assert_eq!(refused.as_deref(), Some("a picture of 0 x 180 pixels is not drawn (1 to 16384 a side)"), "refused before a canvas is made");
    let (message, moved) = picture::message("relinks-chart", Err(NotDrawn("no 2d context".into())));
    assert_eq!(moved.length(), 0);
    let carried = picture::read(&message).expect("a picture's refusal");
    assert_eq!((carried.label.as_str(), carried.drawn.err()), ("relinks-chart", Some(NotDrawn("no 2d context".into()))));
    assert!(picture::read(&js_sys::Uint8Array::new_with_length(3).into()).is_none(), "bytes are a job's answer");
    assert!(picture::read(&JsValue::from_str("ready")).is_none());
    assert!(picture::read(&js_sys::Array::of2(&JsValue::from_str("x"), &JsValue::from_f64(1.0)).into()).is_none());
}

#[wasm_bindgen_test]
fn a_picture_for_a_canvas_no_longer_on_the_page_is_let_go() {
    let bitmap = plot::picture(&job(Chart::Throughput, ChartColours::from_vars(|_| None, false))).expect("drawn");
    // The panel closed while the worker drew: nothing to show it on, and no error.
    while let Some(canvas) = document().get_element_by_id(Chart::Throughput.canvas_id()) {
        canvas.remove();
    }
    assert!(browser::show_picture(Chart::Throughput.canvas_id(), &bitmap).is_ok());
    assert!(document().get_element_by_id(Chart::Throughput.canvas_id()).is_none());
}
