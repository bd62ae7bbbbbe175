//! Measured vs simulated for the Groovy 2.4 sweeps (`crates/engine/data/groovy24_sweeps.csv`),
//! one PNG per sweep under `docs/plots/`. Regenerate with:
//!
//!     cargo run --release -p blast-cli --example plot_groovy24
//!
//! Text is drawn with a TrueType font read at run time (DejaVu Sans or Liberation Sans, from
//! Debian's fonts-dejavu-core / fonts-liberation), so the build needs no system libraries.

use blast_engine::calibrate::calibrate;
use blast_engine::groovy24::{SweepPoint, SIMULATED};
use blast_engine::Params;
use plotters::prelude::*;
use plotters::style::{register_font, FontStyle};

const FONTS: [&str; 2] = ["/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf"];

fn title(sweep: &str) -> &'static str {
    match sweep {
        "density" => "Write density: one write to the called class every N iterations",
        "sites" => "Hot sites: N sites per iteration, an unrelated write every 1000 calls",
        "burst" => "Burst: N unrelated writes before a steady loop of 100 000 iterations",
        "length" => "Run length: N warm-up ops, then timed ops (a write every 1000)",
        "poly" => "Polymorphic site: N receiver classes in turn, a write every 1000",
        _ => "A method with a body (describe): no writes vs an unrelated write every 1000",
    }
}

fn xlabel(sweep: &str) -> &'static str {
    match sweep {
        "density" => "iterations between writes",
        "sites" => "hot sites",
        "burst" => "writes before the loop",
        "length" => "warm-up ops before timing",
        "poly" => "receiver classes",
        _ => "iterations between writes (0 = none)",
    }
}

fn plot(sweep: &str, pts: &[&SweepPoint], path: &str) -> Result<(), Box<dyn std::error::Error>> {
    let root = BitMapBackend::new(path, (900, 560)).into_drawing_area();
    root.fill(&WHITE)?;
    let lo = pts.iter().map(|p| p.measured_min_ns.min(p.simulated_ns)).fold(f64::MAX, f64::min) / 1e6;
    let hi = pts.iter().map(|p| p.measured_max_ns.max(p.simulated_ns)).fold(0.0, f64::max) / 1e6;
    let n = pts.len();
    let mut chart = ChartBuilder::on(&root)
        .caption(format!("Groovy 2.4 --indy on JDK 17: {}", title(sweep)), ("sans-serif", 20))
        .margin(16)
        .x_label_area_size(44)
        .y_label_area_size(70)
        // Headroom over the highest whisker (log scale) keeps the upper-left legend off the data.
        .build_cartesian_2d(-0.5f64..(n as f64 - 0.5), (lo * 0.7..hi * 4.0).log_scale())?;
    chart
        .configure_mesh()
        .x_labels(n)
        .x_label_formatter(&|x| {
            let i = x.round();
            if (x - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < n {
                pts[i as usize].param.to_string()
            } else {
                String::new()
            }
        })
        .y_label_formatter(&|v| if *v >= 1.0 { format!("{v:.0}") } else { format!("{v:.2}") })
        .x_desc(xlabel(sweep))
        .y_desc("ms per op (log)")
        .label_style(("sans-serif", 15))
        .draw()?;
    let blue = RGBColor(31, 119, 180);
    let orange = RGBColor(230, 120, 20);
    chart
        .draw_series(
            pts.iter().enumerate().map(|(i, p)| {
                ErrorBar::new_vertical(i as f64, p.measured_min_ns / 1e6, p.measured_ns / 1e6, p.measured_max_ns / 1e6, blue.stroke_width(2), 10)
            }),
        )?
        .label("measured: median, min..max over all forks")
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], blue.stroke_width(2)));
    chart.draw_series(LineSeries::new(pts.iter().enumerate().map(|(i, p)| (i as f64, p.measured_ns / 1e6)), blue.stroke_width(1)))?;
    chart
        .draw_series(LineSeries::new(pts.iter().enumerate().map(|(i, p)| (i as f64, p.simulated_ns / 1e6)), orange.stroke_width(3)))?
        .label("simulated (ideal: the measured runtime; Groovy 2.4 call sites, default costs)")
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], orange.stroke_width(3)));
    chart.draw_series(pts.iter().enumerate().map(|(i, p)| Circle::new((i as f64, p.simulated_ns / 1e6), 5, orange.filled())))?;
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font(("sans-serif", 15))
        .draw()?;
    root.present()?;
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let font = FONTS.iter().find_map(|f| std::fs::read(f).ok()).ok_or("no TrueType font found (install fonts-dejavu-core)")?;
    register_font("sans-serif", FontStyle::Normal, Box::leak(font.into_boxed_slice())).map_err(|_| "the font could not be read")?;
    let cal = calibrate(&Params::default());
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/plots");
    std::fs::create_dir_all(dir)?;
    for sweep in SIMULATED {
        let pts: Vec<&SweepPoint> = cal.sweeps.iter().filter(|p| p.sweep == sweep).collect();
        if pts.is_empty() {
            continue;
        }
        let path = format!("{dir}/groovy24_{sweep}.png");
        plot(sweep, &pts, &path)?;
        println!("wrote docs/plots/groovy24_{sweep}.png");
    }
    Ok(())
}
