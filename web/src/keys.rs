//! Keyboard shortcuts: one table drives both the key handling and the cheat sheet.

use blast_engine::model::Event;
use blast_engine::Policy;

use crate::state::Action;

pub struct Shortcut {
    /// Keys as the cheat sheet shows them.
    pub keys: &'static [&'static str],
    pub what: &'static str,
}

pub const SHORTCUTS: &[Shortcut] = &[
    Shortcut { keys: &["Space"], what: "Run / pause" },
    Shortcut { keys: &["n", "→"], what: "Step to the next event or loop segment" },
    Shortcut { keys: &["r"], what: "Reset the run to virtual time zero" },
    Shortcut { keys: &["+", "]"], what: "Faster" },
    Shortcut { keys: &["-", "["], what: "Slower" },
    Shortcut { keys: &["1", "…", "5"], what: "Toggle policy global, exact, hierarchy, hierarchy-v3, ideal (a model's variants in model mode)" },
    Shortcut { keys: &["i"], what: "Fire “invalidate all” into the running simulations" },
    Shortcut { keys: &["t"], what: "Theme: auto → light → dark" },
    Shortcut { keys: &["?"], what: "Show / hide this cheat sheet" },
    Shortcut { keys: &["Esc"], what: "Close the cheat sheet, clear the what-if" },
];

/// The action for a key press outside text fields (`key` is `KeyboardEvent.key`).
/// Modified keys are left to the browser.
pub fn action_for(key: &str, ctrl_or_meta_or_alt: bool) -> Option<Action> {
    if ctrl_or_meta_or_alt {
        return None;
    }
    Some(match key {
        " " | "Spacebar" => Action::TogglePlay,
        "n" | "N" | "ArrowRight" => Action::Step,
        "r" | "R" => Action::Reset,
        "+" | "=" | "]" => Action::SpeedUp,
        "-" | "_" | "[" => Action::SpeedDown,
        "i" | "I" => Action::Fire(Event::InvalidateAll),
        "t" | "T" => Action::CycleTheme,
        "?" => Action::ToggleHelp,
        "Escape" => Action::CloseOverlays,
        digit => {
            let index = digit.parse::<usize>().ok()?.checked_sub(1)?;
            Policy::ALL.get(index)?;
            Action::ToggleLane(index)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_map_to_actions() {
        assert_eq!(action_for(" ", false), Some(Action::TogglePlay));
        assert_eq!(action_for("ArrowRight", false), Some(Action::Step));
        assert_eq!(action_for("?", false), Some(Action::ToggleHelp));
        assert_eq!(action_for("2", false), Some(Action::ToggleLane(1)));
        assert_eq!(action_for("0", false), None);
        assert_eq!(action_for("9", false), None);
        assert_eq!(action_for("x", false), None);
        assert_eq!(action_for("r", true), None, "Ctrl+R stays a browser reload");
    }

    #[test]
    fn the_cheat_sheet_lists_every_mapped_key() {
        let listed: Vec<&str> = SHORTCUTS.iter().flat_map(|s| s.keys.iter().copied()).collect();
        for key in ["Space", "n", "r", "?", "t", "i", "Esc", "+", "-"] {
            assert!(listed.contains(&key), "{key} missing from the cheat sheet");
        }
    }
}
