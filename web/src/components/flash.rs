//! The flash overlay that model mode's entities (arena threads, shape-cache slots, the
//! descriptor slot) show when the replay passes a deopt, a miss or a rebuild.

use yew::prelude::*;

/// A flash overlay that restarts its animation whenever `flash` changes.
pub fn flash_layer(flash: u64) -> Html {
    html! {
        <span class="flash-layer" aria-hidden="true">
            if flash > 0 {
                <span key={flash.to_string()} class="flash-box"></span>
            }
        </span>
    }
}
