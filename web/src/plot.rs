//! The live charts drawn with plotters on a canvas (`blast_playground::charts` builds their
//! data). Colours come from the page's CSS variables (`browser::css_colours`), so the charts
//! follow the light and dark themes; the canvas backing store is sized by `devicePixelRatio`
//! (`browser::fit_canvas`) so text stays crisp. Labels are measured by the canvas
//! (`browser::ChartBackend`), never by the page's layout; the legend is drawn here for that
//! reason (plotters' own legend box measures its text through the DOM).

use crate::browser::{BrowserError, ChartBackend, ComputedStyle};
use blast_engine::Policy;
use blast_playground::charts::{log_bounds, ChartData};
use blast_playground::format;
use blast_playground::timeline::{self, Range, PLOT_LEFT_PX, PLOT_RIGHT_PX};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Space around the plot area, in CSS px: the drawing uses these, and the pointer and the
/// brush map to data with them (`timeline::x_at`, `timeline::css_span`).
const MARGIN_PX: f64 = PLOT_RIGHT_PX;
const Y_LABELS_PX: f64 = PLOT_LEFT_PX - PLOT_RIGHT_PX;

/// `#rrggbb` (or `#rgb`) from a CSS custom property.
pub fn parse_hex(s: &str) -> Option<RGBColor> {
    let h = s.trim().strip_prefix('#')?;
    let digits: Vec<u8> = h.chars().map(|c| c.to_digit(16).map(|d| d as u8)).collect::<Option<_>>()?;
    match digits.as_slice() {
        [r, g, b] => Some(RGBColor(r * 17, g * 17, b * 17)),
        [r1, r2, g1, g2, b1, b2] => Some(RGBColor(r1 * 16 + r2, g1 * 16 + g2, b1 * 16 + b2)),
        _ => None,
    }
}

/// A stylesheet colour as the page shows it: `#rgb` / `#rrggbb`, or the light or dark half of
/// `light-dark(light, dark)` (how style.css writes its themed colours).
pub fn parse_color(s: &str, dark: bool) -> Option<RGBColor> {
    let s = s.trim();
    match s.strip_prefix("light-dark(").and_then(|pair| pair.strip_suffix(')')) {
        Some(pair) => {
            let (light, dark_half) = pair.split_once(',')?;
            parse_hex(if dark { dark_half } else { light })
        }
        None => parse_hex(s),
    }
}

/// Chart colours, read from the stylesheet's variables on the canvas element.
pub struct Palette {
    pub background: RGBColor,
    pub fg: RGBColor,
    pub muted: RGBColor,
    pub grid: RGBColor,
    pub necessary: RGBColor,
    pub collateral: RGBColor,
    pub missed: RGBColor,
    series: Vec<RGBColor>,
}

impl Palette {
    pub fn from_css(style: &ComputedStyle) -> Palette {
        let var = |name: &str, fallback: RGBColor| style.var(name).and_then(|v| parse_color(&v, style.dark())).unwrap_or(fallback);
        Palette {
            background: var("--chart-bg", RGBColor(255, 255, 255)),
            fg: var("--fg", RGBColor(27, 31, 36)),
            muted: var("--muted", RGBColor(91, 100, 112)),
            grid: var("--border", RGBColor(213, 218, 225)),
            necessary: var("--verdict-necessary", RGBColor(21, 128, 61)),
            collateral: var("--verdict-collateral", RGBColor(217, 119, 6)),
            missed: var("--verdict-missed", RGBColor(185, 28, 28)),
            series: (0..Policy::ALL.len()).map(|i| var(&format!("--series-{i}"), RGBColor(100, 100, 100))).collect(),
        }
    }

    pub fn series(&self, slot: usize) -> RGBColor {
        self.series.get(slot).copied().unwrap_or(self.fg)
    }
}

/// A chart drawing function (lines or verdict bars) over the x window shown, as the panel
/// calls them.
pub type DrawChart = fn(DrawingArea<ChartBackend, Shift>, &ChartData, Range, &Palette, f64) -> Result<(), BrowserError>;

/// The band above an exported chart that holds its title and the scenario's name (CSS px).
pub const EXPORT_TITLE_PX: f64 = 44.0;
/// Pixels per CSS px of an exported chart, whatever the screen's ratio: sharp in a document.
pub const EXPORT_SCALE: f64 = 2.0;

/// An exported chart: `title` and `subtitle` (the scenario) in a band of `EXPORT_TITLE_PX`
/// above the chart `draw` makes, all at `scale`.
pub fn draw_export(
    root: DrawingArea<ChartBackend, Shift>,
    (title, subtitle): (&str, &str),
    draw: DrawChart,
    (data, window): (&ChartData, Range),
    pal: &Palette,
    scale: f64,
) -> Result<(), BrowserError> {
    root.fill(&pal.background).map_err(err)?;
    let (head, body) = root.split_vertically((EXPORT_TITLE_PX * scale).round() as u32);
    let at = |x: f64, y: f64| ((x * scale).round() as i32, (y * scale).round() as i32);
    let bold = (FontFamily::SansSerif, 15.0 * scale, FontStyle::Bold).into_font().color(&pal.fg);
    head.draw_text(title, &bold, at(MARGIN_PX, 6.0)).map_err(err)?;
    let small = (FontFamily::SansSerif, 12.0 * scale).into_font().color(&pal.muted);
    head.draw_text(subtitle, &small, at(MARGIN_PX, 26.0)).map_err(err)?;
    draw(body, data, window, pal, scale)
}

fn err(e: impl std::fmt::Display) -> BrowserError {
    BrowserError::Drawing(e.to_string())
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

pub fn draw_throughput(root: DrawingArea<ChartBackend, Shift>, data: &ChartData, window: Range, pal: &Palette, scale: f64) -> Result<(), BrowserError> {
    root.fill(&pal.background).map_err(err)?;
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
    let font = |size: f64| (FontFamily::SansSerif, size * scale).into_font().color(&pal.fg);
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
        .x_desc(data.x_desc)
        .y_desc(data.y_desc.as_str())
        .x_label_formatter(&|v| tick(*v))
        .y_label_formatter(&|v| tick(*v))
        .label_style(font(12.0))
        .axis_desc_style(font(12.0))
        .axis_style(pal.muted.stroke_width(px(1.0)))
        .bold_line_style(pal.grid.mix(0.9))
        .light_line_style(pal.grid.mix(0.35))
        .draw()
        .map_err(err)?;
    // One row of event ticks per lane in the strip, in the lane's colour.
    let row = (strip_hi / strip_lo).powf(1.0 / data.lines.len().max(1) as f64);
    for (i, line) in data.lines.iter().enumerate() {
        let colour = pal.series(line.colour);
        let (y0, y1) = (strip_lo * row.powi(i as i32) * 1.02, strip_lo * row.powi(i as i32 + 1) / 1.02);
        let marks = line.marks.iter().filter(|x| in_window(x));
        chart.draw_series(marks.map(|&x| PathElement::new(vec![(x, y0), (x, y1)], colour.mix(0.8).stroke_width(px(1.0))))).map_err(err)?;
    }
    chart.draw_series(std::iter::once(PathElement::new(vec![(x_lo, strip_hi), (x_hi, strip_hi)], pal.muted.mix(0.5).stroke_width(px(1.0))))).map_err(err)?;
    let width = px(2.0);
    for (line, points) in data.lines.iter().zip(&lines) {
        let colour = pal.series(line.colour);
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
    let entries: Vec<(String, RGBColor)> = data.lines.iter().map(|l| (l.legend(), pal.series(l.colour))).collect();
    legend(&chart.plotting_area().strip_coord_spec(), &entries, &font(12.0), pal, px)?;
    root.present().map_err(err)
}

/// The lines' legend in the plot area's upper right corner: a swatch and a label per line on a
/// translucent box.
fn legend(
    area: &DrawingArea<ChartBackend, Shift>,
    entries: &[(String, RGBColor)],
    font: &TextStyle,
    pal: &Palette,
    px: impl Fn(f64) -> u32,
) -> Result<(), BrowserError> {
    let sizes = entries.iter().map(|(label, _)| area.estimate_text_size(label, font)).collect::<Result<Vec<_>, _>>().map_err(err)?;
    let text_w = sizes.iter().map(|s| s.0).max().unwrap_or(0) as i32;
    let line_h = sizes.iter().map(|s| s.1).max().unwrap_or(0) as i32 + px(4.0) as i32;
    let (pad, swatch, gap, margin) = (px(6.0) as i32, px(18.0) as i32, px(6.0) as i32, px(8.0) as i32);
    let (box_w, box_h) = (2 * pad + swatch + gap + text_w, 2 * pad + line_h * entries.len() as i32);
    let (x0, y0) = (area.dim_in_pixel().0 as i32 - margin - box_w, margin);
    area.draw(&Rectangle::new([(x0, y0), (x0 + box_w, y0 + box_h)], pal.background.mix(0.85).filled())).map_err(err)?;
    area.draw(&Rectangle::new([(x0, y0), (x0 + box_w, y0 + box_h)], pal.grid.stroke_width(1))).map_err(err)?;
    for (i, (label, colour)) in entries.iter().enumerate() {
        let y = y0 + pad + line_h * i as i32 + line_h / 2;
        area.draw(&PathElement::new(vec![(x0 + pad, y), (x0 + pad + swatch, y)], colour.stroke_width(px(2.0)))).map_err(err)?;
        area.draw(&Text::new(label.clone(), (x0 + pad + swatch + gap, y), font.pos(Pos::new(HPos::Left, VPos::Center)))).map_err(err)?;
    }
    Ok(())
}

pub fn draw_relinks(root: DrawingArea<ChartBackend, Shift>, data: &ChartData, window: Range, pal: &Palette, scale: f64) -> Result<(), BrowserError> {
    root.fill(&pal.background).map_err(err)?;
    if data.lines.iter().all(|l| l.points.is_empty()) || data.panels.is_empty() {
        return root.present().map_err(err);
    }
    let px = |v: f64| (v * scale).round() as u32;
    // The family as plotters' enum: from a name (`"sans-serif"`) plotters lowercases it, which
    // links core's Unicode case tables into the bundle.
    let font = |size: f64| (FontFamily::SansSerif, size * scale).into_font().color(&pal.fg);
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
            .axis_style(pal.muted.stroke_width(px(1.0)))
            .bold_line_style(pal.grid.mix(0.8))
            .light_line_style(pal.grid.mix(0.0));
        if last {
            mesh.x_desc(data.x_desc);
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
        for (k, colour) in [pal.necessary, pal.collateral, pal.missed].into_iter().enumerate() {
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

    #[test]
    fn css_colours_parse() {
        assert_eq!(parse_hex("#c2410c"), Some(RGBColor(0xc2, 0x41, 0x0c)));
        assert_eq!(parse_hex("  #fff "), Some(RGBColor(255, 255, 255)));
        assert_eq!(parse_hex("red"), None);
        assert_eq!(parse_hex("#12345"), None);
        assert_eq!(parse_color(" light-dark(#f4f6f9, #0f1216)", false), Some(RGBColor(0xf4, 0xf6, 0xf9)));
        assert_eq!(parse_color("light-dark(#f4f6f9, #0f1216)", true), Some(RGBColor(0x0f, 0x12, 0x16)));
        assert_eq!(parse_color("#fff", true), Some(RGBColor(255, 255, 255)));
        assert_eq!(parse_color("light-dark(#fff)", false), None);
    }
}
