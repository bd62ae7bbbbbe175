//! What a sub-state's reducer asks of the rest of the page, so the sub-states never reach
//! into each other: `state::AppState::reduce` applies it after the sub-reducer returns.

use crate::chrome::BannerKind;
use crate::export::Download;

/// What a session's reducer asks of the rest of the page.
#[derive(Debug, Default, PartialEq)]
pub struct Effects {
    /// Banners to show, in order.
    pub banners: Vec<(BannerKind, String)>,
    /// A call-site scenario was loaded (a preset, a link, a file): it replaces a model on screen.
    pub call_sites_loaded: bool,
    /// A file for the browser to download (the results CSV).
    pub download: Option<Download>,
}

impl Effects {
    pub fn error(&mut self, text: String) {
        self.banners.push((BannerKind::Error, text));
    }

    pub fn info(&mut self, text: String) {
        self.banners.push((BannerKind::Info, text));
    }
}
