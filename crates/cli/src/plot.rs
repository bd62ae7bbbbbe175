//! The committed charts. `blast fingerprint --plot FILE.png` draws the one in docs/RUNTIMES.md:
//! one panel per runtime, the fanout workloads along x (the rows that tell the policies' scopes
//! apart), the measured slowdown as a dot with its spread as a bar (hollow when too wide to
//! read), and every policy's simulated slowdown at its fitted costs as a line in the
//! playground's policy colour. `blast calibrate --plot FILE.png` draws the one in
//! docs/CALIBRATION.md: one panel per Groovy 2.4 sweep, the measured medians with their min..max,
//! the simulation under the measured runtime's invalidation and under `global`.
//!
//! Text is set in a TrueType font read at run time (`FONT_PATH`, Debian's fonts-dejavu-core,
//! installed by scripts/install-tools.sh): the bitmap has no font of its own, and the same
//! font, crates and data give the same bytes, which is how the committed PNG is guarded.

use blast_engine::fingerprint::{fanout_spec, Fingerprint, Pair};
use blast_engine::groovy24::{self, SweepPoint};
use blast_engine::Policy;
use plotters::coord::ranged1d::ValueFormatter;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use plotters::style::FontStyle;

use crate::error::CliError;

pub const FONT_PATH: &str = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";

const PANEL: (u32, u32) = (560, 300);
const COLUMNS: u32 = 2;

/// The playground's light-theme policy colours (assets/style.css `--policy-*`).
fn colour(p: Policy) -> RGBColor {
    match p {
        Policy::Global => RGBColor(0xd9, 0x48, 0x0f),
        Policy::Exact => RGBColor(0x1c, 0x7e, 0xd6),
        Policy::Hierarchy => RGBColor(0x9c, 0x36, 0xb5),
        Policy::HierarchyV3 => RGBColor(0x0b, 0x8a, 0x6a),
        Policy::Ideal => RGBColor(0x5c, 0x5f, 0x66),
    }
}

/// The fanout pairs of a fingerprint, in `probes/workloads.json` order (sites, then row), with
/// their index into the fit's `simulated`.
fn fanout_pairs(f: &Fingerprint) -> Vec<(usize, &Pair)> {
    let spec = fanout_spec();
    let mut out = Vec::new();
    for sites in spec.sites {
        for row in spec.rows.iter().filter(|r| r.write.is_some()) {
            if let Some(k) = f.pairs.iter().position(|p| p.workload == row.workload && p.param == Some(*sites)) {
                out.push((k, &f.pairs[k]));
            }
        }
    }
    out
}

/// Short x labels: `root@8` for `fanout_root@8`.
fn short_label(p: &Pair) -> String {
    p.label().trim_start_matches("fanout_").to_string()
}

/// Register the font once per process (plotters keeps registered fonts for the process).
fn register_font(path: &str) -> Result<(), CliError> {
    // The outcome is kept for the process and handed out by reference to every later call, so
    // its error is the message (a `CliError` is neither `Clone` nor `Sync`).
    static REGISTERED: std::sync::OnceLock<Result<(), String>> = std::sync::OnceLock::new();
    REGISTERED
        .get_or_init(|| {
            let bytes = std::fs::read(path).map_err(|e| format!("{path}: {e} (Debian: apt-get install fonts-dejavu-core)"))?;
            plotters::style::register_font("sans-serif", FontStyle::Normal, Box::leak(bytes.into_boxed_slice()))
                .map_err(|_| format!("{path} is not a TrueType font"))
        })
        .clone()
        .map_err(CliError::Plot)
}

/// The chart as PNG bytes.
pub fn fingerprint_png(prints: &[Fingerprint]) -> Result<Vec<u8>, CliError> {
    grid_png(prints.len(), draw_legend, |i, area| draw_panel(area, &prints[i]))
}

/// A legend strip over `panels` panels laid out `COLUMNS` wide (at least one row), drawn
/// into a pixel buffer and encoded as PNG: the frame both charts share.
fn grid_png<L, P>(panels: usize, legend: L, mut panel: P) -> Result<Vec<u8>, CliError>
where
    L: for<'a> FnOnce(&Area<'a>) -> Drawn<'a>,
    P: for<'a> FnMut(usize, &Area<'a>) -> Drawn<'a>,
{
    register_font(FONT_PATH)?;
    let rows = (panels as u32).div_ceil(COLUMNS).max(1);
    let legend_h = 34;
    let (w, h) = (PANEL.0 * COLUMNS, PANEL.1 * rows + legend_h);
    let mut rgb = vec![0u8; (w * h * 3) as usize];
    {
        let root = BitMapBackend::with_buffer(&mut rgb, (w, h)).into_drawing_area();
        let plot = |e: DrawingAreaErrorKind<_>| CliError::Plot(e.to_string());
        root.fill(&WHITE).map_err(plot)?;
        let (legend_area, panel_areas) = root.split_vertically(legend_h);
        legend(&legend_area).map_err(plot)?;
        for (i, area) in panel_areas.split_evenly((rows as usize, COLUMNS as usize)).iter().take(panels).enumerate() {
            panel(i, area).map_err(plot)?;
        }
        root.present().map_err(plot)?;
    }
    encode(&rgb, w, h)
}

fn encode(rgb: &[u8], w: u32, h: u32) -> Result<Vec<u8>, CliError> {
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, w, h);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().map_err(|e| CliError::Plot(e.to_string()))?;
    writer.write_image_data(rgb).map_err(|e| CliError::Plot(e.to_string()))?;
    writer.finish().map_err(|e| CliError::Plot(e.to_string()))?;
    Ok(out)
}

type Area<'a> = DrawingArea<BitMapBackend<'a>, plotters::coord::Shift>;
type Drawn<'a> = Result<(), DrawingAreaErrorKind<<BitMapBackend<'a> as DrawingBackend>::ErrorType>>;

fn draw_legend<'a>(area: &Area<'a>) -> Drawn<'a> {
    let text = ("sans-serif", 14).into_font();
    let mut x = 12;
    let y = 17;
    area.draw(&Circle::new((x + 5, y), 5, BLACK.filled()))?;
    area.draw(&Text::new("measured (bar: spread, cut at 50%; hollow: too wide to read)", (x + 16, y - 8), text.clone()))?;
    x += 430;
    for p in Policy::ALL {
        area.draw(&PathElement::new(vec![(x, y), (x + 22, y)], colour(p).stroke_width(3)))?;
        area.draw(&Text::new(p.name(), (x + 27, y - 8), text.clone()))?;
        x += 34 + 8 * p.name().len() as i32;
    }
    Ok(())
}

fn draw_panel<'a>(area: &Area<'a>, f: &Fingerprint) -> Drawn<'a> {
    let pairs = fanout_pairs(f);
    let n = pairs.len().max(1);
    let values = pairs.iter().flat_map(|(k, p)| {
        let sims = f.fits.iter().map(move |fit| fit.simulated[*k]);
        // A spread bar is drawn to at most 1.5x its dot: Groovy's 400% spreads would flatten the rest.
        [p.measured, p.measured * (1.0 + p.spread.min(0.5))].into_iter().chain(sims)
    });
    let (lo, hi) = values.filter(|v| v.is_finite()).fold((0.95f64, 1.3f64), |(lo, hi), v| (lo.min(v / 1.03), hi.max(v * 1.03)));
    let best = std::iter::once(f.best().policy).chain(f.tied()).map(|p| p.name()).collect::<Vec<_>>().join(" = ");
    let title = format!("{}: best {best} (rms {:.3})", f.version, f.best().rms_log10);
    let mut chart = ChartBuilder::on(area)
        .margin(10)
        .caption(title, ("sans-serif", 15))
        .x_label_area_size(28)
        .y_label_area_size(46)
        .build_cartesian_2d(-0.5f64..(n as f64 - 0.5), lo..hi)?;
    let labels: Vec<String> = pairs.iter().map(|(_, p)| short_label(p)).collect();
    category_mesh(&mut chart, &labels, &|y| format!("{y:.2}x"))?;
    // 1x: a write that costs nothing.
    chart.draw_series(std::iter::once(PathElement::new(vec![(-0.5, 1.0), (n as f64 - 0.5, 1.0)], RGBColor(0x99, 0x99, 0x99))))?;
    // Best fit last, so it is drawn on top.
    for fit in f.fits.iter().rev() {
        let points: Vec<(f64, f64)> = pairs.iter().enumerate().map(|(x, (k, _))| (x as f64, fit.simulated[*k])).collect();
        let width = if fit.policy == f.best().policy { 3 } else { 2 };
        chart.draw_series(LineSeries::new(points, colour(fit.policy).stroke_width(width)))?;
    }
    for (x, (_, p)) in pairs.iter().enumerate() {
        let x = x as f64;
        chart.draw_series(std::iter::once(PathElement::new(vec![(x, p.measured), (x, p.measured * (1.0 + p.spread.min(0.5)))], BLACK.stroke_width(2))))?;
        let style = if p.readable { BLACK.filled() } else { BLACK.stroke_width(2) };
        chart.draw_series(std::iter::once(Circle::new((x, p.measured), 5, style)))?;
    }
    Ok(())
}

/// What each Groovy 2.4 sweep varies (its x axis).
/// The mesh both charts' panels draw: one x label per category (`labels[i]` at `x = i`, no
/// vertical grid lines), six y labels in `y_label`'s form, light horizontal lines.
fn category_mesh<'a, Y>(
    chart: &mut ChartContext<'a, BitMapBackend<'a>, Cartesian2d<RangedCoordf64, Y>>,
    labels: &[String],
    y_label: &dyn Fn(&f64) -> String,
) -> Drawn<'a>
where
    Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(labels.len().max(1))
        .x_label_formatter(&|x| category_label(labels, *x))
        .y_labels(6)
        .y_label_formatter(y_label)
        .label_style(("sans-serif", 12))
        .max_light_lines(1)
        .light_line_style(RGBColor(0xf2, 0xf2, 0xf2))
        .draw()
}

/// The label of the category drawn at integer `x` (panels put category `i` at `x = i`); the
/// mesh's other label positions stay blank.
fn category_label(labels: &[String], x: f64) -> String {
    labels.get(x.round() as usize).filter(|_| (x - x.round()).abs() < 1e-6).cloned().unwrap_or_default()
}

fn sweep_axis(sweep: &str) -> &'static str {
    match sweep {
        "density" => "a write every N iterations",
        "sites" => "hot sites",
        "burst" => "writes before each op",
        "body" => "a write every N iterations (0: none)",
        "length" => "warm-up ops",
        "poly" => "receiver classes",
        _ => "",
    }
}

/// The Groovy 2.4 sweeps chart (docs/CALIBRATION.md) as PNG bytes: `measured` carries the
/// simulation under [`groovy24::MEASURED_POLICY`], `global` the same rows under `global`.
pub fn sweeps_png(measured: &[SweepPoint], global: &[SweepPoint]) -> Result<Vec<u8>, CliError> {
    let sweeps = groovy24::SIMULATED;
    let of = |pts: &[SweepPoint], sweep: &str| pts.iter().filter(|p| p.sweep == sweep).cloned().collect::<Vec<_>>();
    grid_png(sweeps.len(), draw_sweeps_legend, |i, area| {
        let sweep = sweeps[i];
        draw_sweep(area, sweep, &of(measured, sweep), &of(global, sweep))
    })
}

fn draw_sweeps_legend<'a>(area: &Area<'a>) -> Drawn<'a> {
    let text = ("sans-serif", 14).into_font();
    let y = 17;
    area.draw(&Circle::new((17, y), 5, BLACK.filled()))?;
    area.draw(&Text::new("measured median (bar: min..max)", (28, y - 8), text.clone()))?;
    let mut x = 300;
    let measured = format!("simulated, {} (the measured runtime)", groovy24::MEASURED_POLICY.name());
    for (p, label) in [(groovy24::MEASURED_POLICY, measured.as_str()), (Policy::Global, "simulated, global (JDK 8 to 13)")] {
        area.draw(&PathElement::new(vec![(x, y), (x + 22, y)], colour(p).stroke_width(3)))?;
        area.draw(&Text::new(label.to_string(), (x + 27, y - 8), text.clone()))?;
        x += 300;
    }
    Ok(())
}

fn draw_sweep<'a>(area: &Area<'a>, sweep: &str, measured: &[SweepPoint], global: &[SweepPoint]) -> Drawn<'a> {
    let n = measured.len().max(1);
    let ms = |ns: f64| ns / 1e6;
    let values = measured.iter().flat_map(|p| [p.measured_min_ns, p.measured_max_ns, p.simulated_ns]).chain(global.iter().map(|p| p.simulated_ns));
    let (lo, hi) = values.filter(|v| v.is_finite() && *v > 0.0).fold((f64::INFINITY, 0.0f64), |(lo, hi), v| (lo.min(ms(v) / 1.2), hi.max(ms(v) * 1.2)));
    // At least a decade, so the log axis has a labelled line.
    let lo = lo.min(hi / 10.0);
    let mut chart = ChartBuilder::on(area)
        .margin(10)
        .caption(format!("{sweep}: ms per op by {}", sweep_axis(sweep)), ("sans-serif", 15))
        .x_label_area_size(28)
        .y_label_area_size(52)
        .build_cartesian_2d(-0.5f64..(n as f64 - 0.5), (lo..hi).log_scale())?;
    let labels: Vec<String> = measured.iter().map(|p| p.param.to_string()).collect();
    category_mesh(&mut chart, &labels, &|y| if *y >= 1.0 { format!("{y:.0}") } else { format!("{y:.1}") })?;
    for (pts, policy, width) in [(global, Policy::Global, 2), (measured, groovy24::MEASURED_POLICY, 3)] {
        let line: Vec<(f64, f64)> = pts.iter().enumerate().map(|(x, p)| (x as f64, ms(p.simulated_ns))).collect();
        chart.draw_series(LineSeries::new(line, colour(policy).stroke_width(width)))?;
    }
    for (x, p) in measured.iter().enumerate() {
        let x = x as f64;
        chart.draw_series(std::iter::once(PathElement::new(vec![(x, ms(p.measured_min_ns)), (x, ms(p.measured_max_ns))], BLACK.stroke_width(1))))?;
        chart.draw_series(std::iter::once(Circle::new((x, ms(p.measured_ns)), 5, BLACK.filled())))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_x_axis_is_the_fanout_rows_in_the_shared_order() {
        let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../probes/results/cpython.json")).unwrap();
        let f = blast_engine::fingerprint::fingerprint(&blast_engine::fingerprint::ProbeResult::parse(&text).unwrap()).unwrap();
        let labels: Vec<String> = fanout_pairs(&f).iter().map(|(_, p)| short_label(p)).collect();
        assert_eq!(labels, ["other@8", "leaf@8", "root@8", "other@64", "leaf@64", "root@64"]);
    }
}
