//! plotters' drawing backend over a worker's canvas (`OffscreenCanvas`), after `plotters-canvas`'s
//! for a page's, which a worker cannot use: it names the page's canvas types, which a worker's
//! scope does not have. Text is measured by the canvas (`measureText`); plotters' own measure
//! needs a page's layout.

use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingBackend, DrawingErrorKind, FontTransform};
use web_sys::OffscreenCanvasRenderingContext2d;

/// Why a chart was not drawn: the canvas's or plotters' words.
#[derive(Debug)]
pub struct DrawError(pub String);

impl std::fmt::Display for DrawError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for DrawError {}

/// A canvas's 2d context of `size` pixels, as plotters draws on it.
pub struct OffscreenBackend {
    size: (u32, u32),
    context: OffscreenCanvasRenderingContext2d,
}

type Drawn = Result<(), DrawingErrorKind<DrawError>>;

fn css_colour(c: BackendColor) -> String {
    let (r, g, b) = c.rgb;
    format!("rgba({r},{g},{b},{})", c.alpha)
}

fn threw(_: wasm_bindgen::JsValue) -> DrawingErrorKind<DrawError> {
    DrawingErrorKind::DrawingError(DrawError("the canvas refused a drawing call".into()))
}

impl OffscreenBackend {
    pub fn new(size: (u32, u32), context: OffscreenCanvasRenderingContext2d) -> OffscreenBackend {
        OffscreenBackend { size, context }
    }

    fn stroke_style(&self, style: &impl BackendStyle) {
        self.context.set_stroke_style_str(&css_colour(style.color()));
        self.context.set_line_width(style.stroke_width() as f64);
    }

    fn font(&self, style: &impl BackendTextStyle) {
        self.context.set_font(&format!("{} {}px {}", style.style().as_str(), style.size(), style.family().as_str()));
    }

    /// A path through `points` (closed for a fill), then stroked or filled.
    fn path(&self, points: impl IntoIterator<Item = BackendCoord>, close: bool) {
        self.context.begin_path();
        let mut points = points.into_iter();
        if let Some((x, y)) = points.next() {
            self.context.move_to(f64::from(x), f64::from(y));
            for (x, y) in points {
                self.context.line_to(f64::from(x), f64::from(y));
            }
            if close {
                self.context.close_path();
            }
        }
    }
}

impl DrawingBackend for OffscreenBackend {
    type ErrorType = DrawError;

    fn get_size(&self) -> (u32, u32) {
        self.size
    }
    fn ensure_prepared(&mut self) -> Drawn {
        Ok(())
    }
    fn present(&mut self) -> Drawn {
        Ok(())
    }
    fn draw_pixel(&mut self, (x, y): BackendCoord, color: BackendColor) -> Drawn {
        if color.alpha > 0.0 {
            self.context.set_fill_style_str(&css_colour(color));
            self.context.fill_rect(f64::from(x), f64::from(y), 1.0, 1.0);
        }
        Ok(())
    }
    fn draw_line<S: BackendStyle>(&mut self, from: BackendCoord, to: BackendCoord, style: &S) -> Drawn {
        if style.color().alpha > 0.0 {
            // A horizontal or vertical line on a pixel's middle, not its edge: one pixel sharp
            // rather than two half-lit.
            let half = |a: i32, b: i32| if a == b { 0.5 } else { 0.0 };
            let (dx, dy) = (half(from.0, to.0), half(from.1, to.1));
            self.stroke_style(style);
            self.context.begin_path();
            self.context.move_to(f64::from(from.0) - dx, f64::from(from.1) - dy);
            self.context.line_to(f64::from(to.0) - dx, f64::from(to.1) - dy);
            self.context.stroke();
        }
        Ok(())
    }
    fn draw_rect<S: BackendStyle>(&mut self, (x0, y0): BackendCoord, (x1, y1): BackendCoord, style: &S, fill: bool) -> Drawn {
        if style.color().alpha > 0.0 {
            let (x, y, w, h) = (f64::from(x0), f64::from(y0), f64::from(x1 - x0), f64::from(y1 - y0));
            if fill {
                self.context.set_fill_style_str(&css_colour(style.color()));
                self.context.fill_rect(x, y, w, h);
            } else {
                self.stroke_style(style);
                self.context.stroke_rect(x, y, w, h);
            }
        }
        Ok(())
    }
    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(&mut self, path: I, style: &S) -> Drawn {
        if style.color().alpha > 0.0 {
            self.stroke_style(style);
            self.path(path, false);
            self.context.stroke();
        }
        Ok(())
    }
    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(&mut self, vert: I, style: &S) -> Drawn {
        if style.color().alpha > 0.0 {
            self.context.set_fill_style_str(&css_colour(style.color()));
            self.path(vert, true);
            self.context.fill();
        }
        Ok(())
    }
    fn draw_circle<S: BackendStyle>(&mut self, (x, y): BackendCoord, radius: u32, style: &S, fill: bool) -> Drawn {
        if style.color().alpha > 0.0 {
            self.context.begin_path();
            self.context.arc(f64::from(x), f64::from(y), f64::from(radius), 0.0, std::f64::consts::TAU).map_err(threw)?;
            if fill {
                self.context.set_fill_style_str(&css_colour(style.color()));
                self.context.fill();
            } else {
                self.stroke_style(style);
                self.context.stroke();
            }
        }
        Ok(())
    }
    fn draw_text<S: BackendTextStyle>(&mut self, text: &str, style: &S, (x, y): BackendCoord) -> Drawn {
        let colour = style.color();
        if colour.alpha == 0.0 {
            return Ok(());
        }
        let quarters = match style.transform() {
            FontTransform::None => 0.0,
            FontTransform::Rotate90 => 1.0,
            FontTransform::Rotate180 => 2.0,
            FontTransform::Rotate270 => 3.0,
        };
        let (mut x, mut y) = (f64::from(x), f64::from(y));
        if quarters != 0.0 {
            self.context.save();
            self.context.translate(x, y).map_err(threw)?;
            self.context.rotate(quarters * std::f64::consts::FRAC_PI_2).map_err(threw)?;
            (x, y) = (0.0, 0.0);
        }
        self.context.set_text_baseline(match style.anchor().v_pos {
            VPos::Top => "top",
            VPos::Center => "middle",
            VPos::Bottom => "bottom",
        });
        self.context.set_text_align(match style.anchor().h_pos {
            HPos::Left => "start",
            HPos::Right => "end",
            HPos::Center => "center",
        });
        self.context.set_fill_style_str(&css_colour(colour));
        self.font(style);
        self.context.fill_text(text, x, y).map_err(threw)?;
        if quarters != 0.0 {
            self.context.restore();
        }
        Ok(())
    }
    /// The text's advance width and its font's ascent plus descent (what a page's box for it
    /// would be).
    fn estimate_text_size<S: BackendTextStyle>(&self, text: &str, style: &S) -> Result<(u32, u32), DrawingErrorKind<DrawError>> {
        self.font(style);
        let m = self.context.measure_text(text).map_err(threw)?;
        Ok((m.width().ceil() as u32, (m.font_bounding_box_ascent() + m.font_bounding_box_descent()).ceil() as u32))
    }
}
