//! The live charts, drawn with plotters by the engine worker (`chart_wire`: the page sends a
//! `ChartJob` and puts the picture on its canvas as it is). The data is built on the page
//! (`blast_playground::charts`), the colours are the stylesheet's (`ChartColours`, so the charts
//! follow the light and dark themes), and the picture is the canvas's CSS size times the
//! screen's pixel ratio, so text stays crisp. Labels are measured by the worker's canvas
//! (`measureText`); the legend is drawn here because plotters' own legend box measures its text
//! through a page's DOM, which a worker has none of.

use std::fmt;

use blast_playground::charts::{log_bounds, ChartColours, ChartData, Rgb};
use blast_playground::format;
use blast_playground::timeline::{self, Range, PLOT_LEFT_PX, PLOT_RIGHT_PX};
use blast_playground::worker::chart_wire::{Chart, ChartJob, Destination, EXPORT_TITLE_PX};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use wasm_bindgen::JsCast;
use web_sys::{ImageBitmap, OffscreenCanvas, OffscreenCanvasRenderingContext2d};

use crate::offscreen::{DrawError, OffscreenBackend};

/// Space around the plot area, in CSS px: the drawing uses these, and the pointer and the
/// brush map to data with them (`timeline::x_at`, `timeline::css_span`).
const MARGIN_PX: f64 = PLOT_RIGHT_PX;
const Y_LABELS_PX: f64 = PLOT_LEFT_PX - PLOT_RIGHT_PX;

fn err(e: impl fmt::Display) -> DrawError {
    DrawError(e.to_string())
}

/// The job's chart as a picture: drawn on a canvas of the job's size off any page, then taken
/// from it whole (`transferToImageBitmap`: moved, not copied). A job it will not draw
/// (`ChartJob::drawable`) is refused before a canvas is made.
pub fn picture(job: &ChartJob) -> Result<ImageBitmap, DrawError> {
    job.drawable().map_err(err)?;
    let (w, h) = job.size_px;
    let canvas = OffscreenCanvas::new(w, h).map_err(|_| DrawError("a canvas of that size could not be made".into()))?;
    let context = canvas.get_context("2d").ok().flatten().and_then(|c| c.dyn_into::<OffscreenCanvasRenderingContext2d>().ok());
    let context = context.ok_or_else(|| DrawError("a canvas's 2d context is not available in this worker".into()))?;
    let root = OffscreenBackend::new((w, h), context).into_drawing_area();
    let draw = match job.chart {
        Chart::Throughput => draw_throughput,
        Chart::Relinks => draw_relinks,
    };
    let (colours, scale) = (&job.colours, job.scale);
    match &job.destination {
        Destination::Canvas => draw(root, &job.data, job.window, colours, scale)?,
        Destination::Export { title, subject, .. } => {
            root.fill(&rgb(colours.background)).map_err(err)?;
            let (head, body) = root.split_vertically((EXPORT_TITLE_PX * scale).round() as u32);
            let at = |x: f64, y: f64| ((x * scale).round() as i32, (y * scale).round() as i32);
            let bold = (FontFamily::SansSerif, 15.0 * scale, FontStyle::Bold).into_font().color(&rgb(colours.fg));
            head.draw_text(title, &bold, at(MARGIN_PX, 6.0)).map_err(err)?;
            let small = (FontFamily::SansSerif, 12.0 * scale).into_font().color(&rgb(colours.muted));
            head.draw_text(subject, &small, at(MARGIN_PX, 26.0)).map_err(err)?;
            draw(body, &job.data, job.window, colours, scale)?;
        }
    }
    canvas.transfer_to_image_bitmap().map_err(|_| DrawError("the drawn canvas could not be taken as a picture".into()))
}

fn rgb(c: Rgb) -> RGBColor {
    RGBColor(c.0, c.1, c.2)
}

/// Axis ticks: the shortest decimal (`0.01`, `20`, `1500`).
fn tick(v: f64) -> String {
    if v != 0.0 && v.abs() < 1e-4 {
        format!("{v:.0e}")
    } else {
        format::plain(v)
    }
}

/// Relink counts are whole numbers: label only whole ticks.
fn whole_tick(v: f64) -> String {
    if (v - v.round()).abs() < 1e-9 {
        format!("{v:.0}")
    } else {
        String::new()
    }
}

type Area = DrawingArea<OffscreenBackend, Shift>;

fn draw_throughput(root: Area, data: &ChartData, window: Range, pal: &ChartColours, scale: f64) -> Result<(), DrawError> {
    root.fill(&rgb(pal.background)).map_err(err)?;
    // Plotters does not clip to the plot area: only what is in the window is drawn, and the
    // y axis fits what is in it (zooming into a slow stretch shows its detail).
    let lines: Vec<Vec<(f64, f64)>> = data.lines.iter().map(|l| timeline::clip_line(&l.points, window)).collect();
    let Some((lo, hi)) = log_bounds(lines.iter().flatten().map(|p| p.1)) else {
        return root.present().map_err(err);
    };
    let (x_lo, x_hi) = window;
    let in_window = |x: &f64| (x_lo..=x_hi).contains(x);
    let px = |v: f64| (v * scale).round() as u32;
    // The family as plotters' enum: from a name (`"sans-serif"`) plotters lowercases it, which
    // links core's Unicode case tables into the bundle.
    let font = |size: f64| (FontFamily::SansSerif, size * scale).into_font().color(&rgb(pal.fg));
    // Room past each decade, so both end decades get a labelled tick; below the lowest one,
    // a strip of its own for the event ticks (on a gridline they looked like data).
    let (strip_lo, strip_hi) = (lo * 0.55, lo * 0.85);
    let mut chart = ChartBuilder::on(&root)
        .margin(px(MARGIN_PX))
        .x_label_area_size(px(40.0))
        .y_label_area_size(px(Y_LABELS_PX))
        .build_cartesian_2d(x_lo..x_hi, (strip_lo..hi * 1.25).log_scale())
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_labels(6)
        .y_labels(6)
        .x_desc(data.x_desc.as_str())
        .y_desc(data.y_desc.as_str())
        .x_label_formatter(&|v| tick(*v))
        .y_label_formatter(&|v| tick(*v))
        .label_style(font(12.0))
        .axis_desc_style(font(12.0))
        .axis_style(rgb(pal.muted).stroke_width(px(1.0)))
        .bold_line_style(rgb(pal.grid).mix(0.9))
        .light_line_style(rgb(pal.grid).mix(0.35))
        .draw()
        .map_err(err)?;
    // One row of event ticks per lane in the strip, in the lane's colour.
    let row = (strip_hi / strip_lo).powf(1.0 / data.lines.len().max(1) as f64);
    for (i, line) in data.lines.iter().enumerate() {
        let colour = rgb(pal.series(line.colour));
        let (y0, y1) = (strip_lo * row.powi(i as i32) * 1.02, strip_lo * row.powi(i as i32 + 1) / 1.02);
        let marks = line.marks.iter().filter(|x| in_window(x));
        chart.draw_series(marks.map(|&x| PathElement::new(vec![(x, y0), (x, y1)], colour.mix(0.8).stroke_width(px(1.0))))).map_err(err)?;
    }
    chart
        .draw_series(std::iter::once(PathElement::new(vec![(x_lo, strip_hi), (x_hi, strip_hi)], rgb(pal.muted).mix(0.5).stroke_width(px(1.0)))))
        .map_err(err)?;
    let width = px(2.0);
    for (line, points) in data.lines.iter().zip(&lines) {
        let colour = rgb(pal.series(line.colour));
        if line.same_as.is_some() {
            // Dashed over the line it equals: both colours show.
            chart.draw_series(DashedLineSeries::new(points.iter().copied(), px(7.0), px(5.0), colour.stroke_width(width))).map_err(err)?;
        } else {
            chart.draw_series(LineSeries::new(points.iter().copied(), colour.stroke_width(width))).map_err(err)?;
        }
        // Deopts: a "v" on the line where the compiled code was thrown away (a path, like the
        // event ticks: one more marker type costs the bundle its drawing code).
        let (dx, dy) = ((x_hi - x_lo) * 0.004, 1.25);
        let on_line = line.deopts.iter().filter(|x| in_window(x)).filter_map(|&x| line.value_at(x).map(|y| (x, y)));
        chart
            .draw_series(on_line.map(|(x, y)| PathElement::new(vec![(x - dx, y * dy), (x, y), (x + dx, y * dy)], colour.stroke_width(px(1.5)))))
            .map_err(err)?;
    }
    let entries: Vec<(String, RGBColor)> = data.lines.iter().map(|l| (l.legend(), rgb(pal.series(l.colour)))).collect();
    legend(&chart.plotting_area().strip_coord_spec(), &entries, &font(12.0), pal, px)?;
    root.present().map_err(err)
}

/// The lines' legend in the plot area's upper right corner: a swatch and a label per line on a
/// translucent box.
fn legend(area: &Area, entries: &[(String, RGBColor)], font: &TextStyle, pal: &ChartColours, px: impl Fn(f64) -> u32) -> Result<(), DrawError> {
    let sizes = entries.iter().map(|(label, _)| area.estimate_text_size(label, font)).collect::<Result<Vec<_>, _>>().map_err(err)?;
    let text_w = sizes.iter().map(|s| s.0).max().unwrap_or(0) as i32;
    let line_h = sizes.iter().map(|s| s.1).max().unwrap_or(0) as i32 + px(4.0) as i32;
    let (pad, swatch, gap, margin) = (px(6.0) as i32, px(18.0) as i32, px(6.0) as i32, px(8.0) as i32);
    let (box_w, box_h) = (2 * pad + swatch + gap + text_w, 2 * pad + line_h * entries.len() as i32);
    let (x0, y0) = (area.dim_in_pixel().0 as i32 - margin - box_w, margin);
    area.draw(&Rectangle::new([(x0, y0), (x0 + box_w, y0 + box_h)], rgb(pal.background).mix(0.85).filled())).map_err(err)?;
    area.draw(&Rectangle::new([(x0, y0), (x0 + box_w, y0 + box_h)], rgb(pal.grid).stroke_width(1))).map_err(err)?;
    for (i, (label, colour)) in entries.iter().enumerate() {
        let y = y0 + pad + line_h * i as i32 + line_h / 2;
        area.draw(&PathElement::new(vec![(x0 + pad, y), (x0 + pad + swatch, y)], colour.stroke_width(px(2.0)))).map_err(err)?;
        area.draw(&Text::new(label.clone(), (x0 + pad + swatch + gap, y), font.pos(Pos::new(HPos::Left, VPos::Center)))).map_err(err)?;
    }
    Ok(())
}

fn draw_relinks(root: Area, data: &ChartData, window: Range, pal: &ChartColours, scale: f64) -> Result<(), DrawError> {
    root.fill(&rgb(pal.background)).map_err(err)?;
    if data.lines.iter().all(|l| l.points.is_empty()) || data.panels.is_empty() {
        return root.present().map_err(err);
    }
    let px = |v: f64| (v * scale).round() as u32;
    // The family as plotters' enum: from a name (`"sans-serif"`) plotters lowercases it, which
    // links core's Unicode case tables into the bundle.
    let font = |size: f64| (FontFamily::SansSerif, size * scale).into_font().color(&rgb(pal.fg));
    let (x_lo, x_hi) = window;
    let areas = root.split_evenly((data.panels.len(), 1));
    for (i, (panel, area)) in data.panels.iter().zip(areas.iter()).enumerate() {
        let bars = &timeline::clip_bars(&panel.bars, window);
        let y_hi = (bars.iter().map(|b| b.2 + b.3 + b.4).max().unwrap_or(0) as f64 * 1.15).ceil().max(2.0);
        let last = i + 1 == data.panels.len();
        let mut chart = ChartBuilder::on(area)
            .margin_left(px(MARGIN_PX))
            .margin_right(px(MARGIN_PX))
            .margin_top(px(8.0))
            .margin_bottom(px(4.0))
            .x_label_area_size(if last { px(40.0) } else { 0 })
            .y_label_area_size(px(Y_LABELS_PX))
            .build_cartesian_2d(x_lo..x_hi, 0f64..y_hi)
            .map_err(err)?;
        let mut mesh = chart.configure_mesh();
        mesh.y_labels(3)
            .x_labels(if last { 6 } else { 0 })
            .y_desc(panel.label.as_str())
            .x_label_formatter(&|v| tick(*v))
            .y_label_formatter(&|v| whole_tick(*v))
            .label_style(font(11.0))
            .axis_desc_style(font(12.0))
            .axis_style(rgb(pal.muted).stroke_width(px(1.0)))
            .bold_line_style(rgb(pal.grid).mix(0.8))
            .light_line_style(rgb(pal.grid).mix(0.0));
        if last {
            mesh.x_desc(data.x_desc.as_str());
        }
        mesh.draw().map_err(err)?;
        let stack = |k: usize| {
            bars.iter().map(move |&(x0, x1, n, c, m)| {
                let (from, to) = match k {
                    0 => (0, n),
                    1 => (n, n + c),
                    _ => (n + c, n + c + m),
                };
                (x0, x1, from as f64, to as f64)
            })
        };
        // The verdict colours are named in the HTML caption: no legend box over the bars.
        for (k, colour) in [rgb(pal.necessary), rgb(pal.collateral), rgb(pal.missed)].into_iter().enumerate() {
            chart.draw_series(stack(k).filter(|b| b.3 > b.2).map(|(x0, x1, y0, y1)| Rectangle::new([(x0, y0), (x1, y1)], colour.filled()))).map_err(err)?;
        }
    }
    root.present().map_err(err)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_short() {
        assert_eq!(tick(0.01), "0.01");
        assert_eq!(tick(20.0), "20");
        assert_eq!(tick(0.00001), "1e-5");
        assert_eq!(whole_tick(2.0), "2");
        assert_eq!(whole_tick(0.5), "");
    }
}
