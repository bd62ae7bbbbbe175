//! The page's chrome: theme, cheat sheet, banners and the guided tour, with their reducer.
//! Nothing here knows about scenarios or runs; the sessions reach it only through
//! `effects::Effects` (banners to show, a new run began).

use serde::{Deserialize, Serialize};

const MAX_BANNERS: usize = 4;
/// Steps of the guided tour (`components::tour` holds their text).
pub const TOUR_STEPS: usize = 4;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Theme {
    /// Follow `prefers-color-scheme`.
    #[default]
    Auto,
    Light,
    Dark,
}

impl Theme {
    pub const ALL: [Theme; 3] = [Theme::Auto, Theme::Light, Theme::Dark];

    pub fn next(self) -> Theme {
        match self {
            Theme::Auto => Theme::Light,
            Theme::Light => Theme::Dark,
            Theme::Dark => Theme::Auto,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Theme::Auto => "auto",
            Theme::Light => "light",
            Theme::Dark => "dark",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BannerKind {
    Error,
    Info,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Banner {
    pub id: u64,
    pub kind: BannerKind,
    pub text: String,
}

/// A chrome action (`Action::Chrome`).
#[derive(Clone, Debug, PartialEq)]
pub enum ChromeAction {
    CycleTheme,
    ToggleHelp,
    CloseHelp,
    ShowError(String),
    ShowInfo(String),
    DismissBanner(u64),
    TourNext,
    TourBack,
    /// Skip or finish the tour (the page remembers it: `browser::remember_tour_done`).
    TourClose,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Chrome {
    pub theme: Theme,
    pub help_open: bool,
    pub banners: Vec<Banner>,
    next_banner: u64,
    /// The guided tour's step on screen, if it is showing.
    pub tour: Option<usize>,
    /// A first visit: `Action::Autoplay` runs the headline comparison once the page is mounted
    /// (engine frames during the staged mount would make its tasks long). Anything that starts
    /// a new run first cancels it.
    pub autoplay: bool,
}

impl Default for Chrome {
    fn default() -> Self {
        Chrome { theme: Theme::Auto, help_open: false, banners: Vec::new(), next_banner: 1, tour: None, autoplay: false }
    }
}

impl Chrome {
    pub fn reduce(&mut self, action: ChromeAction) {
        match action {
            ChromeAction::CycleTheme => self.theme = self.theme.next(),
            ChromeAction::ToggleHelp => self.help_open = !self.help_open,
            ChromeAction::CloseHelp => self.help_open = false,
            ChromeAction::ShowError(text) => self.banner(BannerKind::Error, text),
            ChromeAction::ShowInfo(text) => self.banner(BannerKind::Info, text),
            ChromeAction::DismissBanner(id) => self.banners.retain(|b| b.id != id),
            ChromeAction::TourNext => self.tour = self.tour.map(|s| s + 1).filter(|&s| s < TOUR_STEPS),
            ChromeAction::TourBack => self.tour = self.tour.map(|s| s.saturating_sub(1)),
            ChromeAction::TourClose => self.tour = None,
        }
    }

    /// Errors stay until dismissed (up to `MAX_BANNERS`); a notice replaces the previous
    /// notice, so three imports leave one "Loaded …" line, not three.
    pub fn banner(&mut self, kind: BannerKind, text: String) {
        if self.banners.iter().any(|b| b.text == text) {
            return;
        }
        if kind == BannerKind::Info {
            self.banners.retain(|b| b.kind != BannerKind::Info);
        }
        self.banners.push(Banner { id: self.next_banner, kind, text });
        self.next_banner += 1;
        if self.banners.len() > MAX_BANNERS {
            self.banners.remove(0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn banners_are_capped_deduplicated_and_dismissable() {
        let mut c = Chrome::default();
        for i in 0..6 {
            c.reduce(ChromeAction::ShowError(format!("e{i}")));
        }
        c.reduce(ChromeAction::ShowError("e5".into()));
        assert_eq!(c.banners.len(), MAX_BANNERS);
        let id = c.banners[0].id;
        c.reduce(ChromeAction::DismissBanner(id));
        assert_eq!(c.banners.len(), MAX_BANNERS - 1);
    }

    #[test]
    fn a_notice_replaces_the_last_notice_and_errors_stay() {
        let mut c = Chrome::default();
        c.reduce(ChromeAction::ShowError("broken file".into()));
        for name in ["a", "b", "c"] {
            c.reduce(ChromeAction::ShowInfo(format!("Loaded {name}")));
        }
        let kinds: Vec<BannerKind> = c.banners.iter().map(|b| b.kind).collect();
        assert_eq!(kinds, [BannerKind::Error, BannerKind::Info]);
        assert_eq!(c.banners[1].text, "Loaded c", "the latest notice is shown");
    }

    #[test]
    fn the_theme_cycles() {
        let mut c = Chrome::default();
        c.reduce(ChromeAction::CycleTheme);
        c.reduce(ChromeAction::CycleTheme);
        assert_eq!(c.theme, Theme::Dark);
        c.reduce(ChromeAction::CycleTheme);
        assert_eq!(c.theme, Theme::Auto);
    }

    #[test]
    fn the_tour_steps_forward_and_back_and_closes() {
        let mut c = Chrome { tour: Some(0), ..Chrome::default() };
        c.reduce(ChromeAction::TourBack);
        assert_eq!(c.tour, Some(0), "no step before the first");
        c.reduce(ChromeAction::TourNext);
        c.reduce(ChromeAction::TourNext);
        c.reduce(ChromeAction::TourBack);
        assert_eq!(c.tour, Some(1));
        for _ in 1..TOUR_STEPS {
            c.reduce(ChromeAction::TourNext);
        }
        assert_eq!(c.tour, None, "Next on the last step ends the tour");
        c.reduce(ChromeAction::TourNext);
        assert_eq!(c.tour, None, "and it stays closed");
        let mut c = Chrome { tour: Some(2), ..Chrome::default() };
        c.reduce(ChromeAction::TourClose);
        assert_eq!(c.tour, None);
    }
}
