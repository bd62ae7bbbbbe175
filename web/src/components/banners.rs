//! Errors and notices at the top of the page; each can be dismissed. `message` renders any
//! message's `` `names` `` as code, here and wherever else a message is shown.

use yew::prelude::*;

use crate::components::raw;
use blast_playground::chrome::{Banner, BannerKind};
use blast_playground::format;
use blast_playground::markup::escape;

pub struct BannersProps {
    pub banners: Vec<Banner>,
    pub on_dismiss: Callback<u64>,
}

/// A message with its backtick-quoted names as `<code>`.
pub fn message(text: &str) -> Html {
    // Markup (`blast_playground::markup`): messages quote names from the scenario, escaped.
    let mut s = String::new();
    for (code, part) in format::code_spans(text) {
        let part = escape(part);
        if code {
            s.push_str("<code>");
            s.push_str(&part);
            s.push_str("</code>");
        } else {
            s.push_str(&part);
        }
    }
    raw(s)
}

pub fn banners(p: &BannersProps) -> Html {
    html! {
        <div id="banners" class="banners">
            { for p.banners.iter().map(|b| {
                let (class, role) = match b.kind {
                    BannerKind::Error => ("banner banner-error", "alert"),
                    BannerKind::Info => ("banner banner-info", "status"),
                };
                let id = b.id;
                let cb = p.on_dismiss.clone();
                html! {
                    <div {class} {role} key={b.id.to_string()}>
                        <span class="banner-text">{ message(&b.text) }</span>
                        <button class="icon" aria-label="Dismiss" title="Dismiss" onclick={Callback::from(move |_: MouseEvent| cb.emit(id))}>{ "×" }</button>
                    </div>
                }
            }) }
        </div>
    }
}
