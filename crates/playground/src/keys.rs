//! Keyboard shortcuts: one table drives both the key handling and the cheat sheet.

use blast_engine::scenario::Event;
use blast_engine::Policy;

use crate::action::Action;
use crate::chrome::ChromeAction;
use crate::playback::Control;
use crate::session::SessionAction;

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
    Shortcut { keys: &["Ctrl", "Z"], what: "Undo a scenario edit (form or text; Cmd on a Mac)" },
    Shortcut { keys: &["Ctrl", "Shift", "Z"], what: "Redo (also Ctrl+Y)" },
    Shortcut { keys: &["?"], what: "Show / hide this cheat sheet" },
    Shortcut { keys: &["Esc"], what: "Close the cheat sheet, clear the what-if" },
];

/// What has the keyboard focus when a key is pressed, as far as shortcuts care.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Focus {
    /// A text field (text-like `<input>`, `<textarea>`, contenteditable): every key is text.
    TextField,
    /// A button or checkbox: Space and Enter press it.
    Pressable,
    /// A select, radio group or slider: Space, Enter, arrows and Home/End choose with it.
    Chooser,
    /// Anything else (the page, a link, an SVG node).
    Other,
}

/// `tag` is `Element.tagName` (upper case), `input_type` an `<input>`'s `type` attribute
/// (empty when absent), `editable` whether the element is inside a contenteditable.
pub fn focus_kind(tag: &str, input_type: &str, editable: bool) -> Focus {
    if editable {
        return Focus::TextField;
    }
    match tag {
        "TEXTAREA" => Focus::TextField,
        "SELECT" => Focus::Chooser,
        "BUTTON" => Focus::Pressable,
        "INPUT" => match input_type.to_ascii_lowercase().as_str() {
            "checkbox" | "button" | "submit" | "reset" | "file" | "color" | "image" => Focus::Pressable,
            "radio" | "range" => Focus::Chooser,
            // `text`, `number`, `search`, … and unknown types are text fields (as browsers treat them).
            _ => Focus::TextField,
        },
        _ => Focus::Other,
    }
}

/// Whether the focused control keeps `key` for itself, so it is not a shortcut. Only text
/// fields take every key (what the cheat sheet promises); other controls keep just the keys
/// that operate them, so `?`, `n` or `1` still work after clicking a checkbox or a select.
pub fn control_keeps(focus: Focus, key: &str) -> bool {
    match focus {
        Focus::TextField => true,
        Focus::Pressable => matches!(key, " " | "Spacebar" | "Enter"),
        Focus::Chooser => {
            matches!(key, " " | "Spacebar" | "Enter" | "ArrowUp" | "ArrowDown" | "ArrowLeft" | "ArrowRight" | "Home" | "End" | "PageUp" | "PageDown")
        }
        Focus::Other => false,
    }
}

/// Undo / redo of scenario edits: Ctrl (or Cmd) + Z, + Shift + Z, or + Y.
pub fn history_action(key: &str, ctrl_or_meta: bool, shift: bool, alt: bool) -> Option<SessionAction> {
    if !ctrl_or_meta || alt {
        return None;
    }
    match key {
        "z" | "Z" if shift => Some(SessionAction::Redo),
        "z" | "Z" => Some(SessionAction::Undo),
        "y" | "Y" if !shift => Some(SessionAction::Redo),
        _ => None,
    }
}

/// The action for a key press outside text fields (`key` is `KeyboardEvent.key`).
/// Modified keys are left to the browser.
pub fn action_for(key: &str, ctrl_or_meta_or_alt: bool) -> Option<Action> {
    if ctrl_or_meta_or_alt {
        return None;
    }
    Some(match key {
        " " | "Spacebar" => Action::Run(Control::TogglePlay),
        "n" | "N" | "ArrowRight" => Action::Run(Control::Step),
        "r" | "R" => Action::Run(Control::Reset),
        "+" | "=" | "]" => Action::Run(Control::SpeedUp),
        "-" | "_" | "[" => Action::Run(Control::SpeedDown),
        "i" | "I" => Action::Session(SessionAction::Fire(Event::InvalidateAll)),
        "t" | "T" => Action::Chrome(ChromeAction::CycleTheme),
        "?" => Action::Chrome(ChromeAction::ToggleHelp),
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
        assert_eq!(action_for(" ", false), Some(Action::Run(Control::TogglePlay)));
        assert_eq!(action_for("ArrowRight", false), Some(Action::Run(Control::Step)));
        assert_eq!(action_for("?", false), Some(Action::Chrome(ChromeAction::ToggleHelp)));
        assert_eq!(action_for("2", false), Some(Action::ToggleLane(1)));
        assert_eq!(action_for("0", false), None);
        assert_eq!(action_for("9", false), None);
        assert_eq!(action_for("x", false), None);
        assert_eq!(action_for("r", true), None, "Ctrl+R stays a browser reload");
    }

    #[test]
    fn ctrl_z_undoes_and_shift_or_y_redoes() {
        assert_eq!(history_action("z", true, false, false), Some(SessionAction::Undo));
        assert_eq!(history_action("Z", true, true, false), Some(SessionAction::Redo));
        assert_eq!(history_action("y", true, false, false), Some(SessionAction::Redo));
        assert_eq!(history_action("z", false, false, false), None, "plain z is a letter");
        assert_eq!(history_action("z", true, false, true), None);
    }

    #[test]
    fn only_text_fields_swallow_shortcuts() {
        let checkbox = focus_kind("INPUT", "checkbox", false);
        let select = focus_kind("SELECT", "", false);
        let text = focus_kind("INPUT", "", false);
        assert_eq!((checkbox, select, text), (Focus::Pressable, Focus::Chooser, Focus::TextField));
        assert_eq!(focus_kind("INPUT", "Number", false), Focus::TextField);
        assert_eq!(focus_kind("DIV", "", true), Focus::TextField);
        for focus in [checkbox, select, focus_kind("INPUT", "radio", false), Focus::Other] {
            for key in ["?", "n", "1", "r"] {
                assert!(!control_keeps(focus, key), "{key} on {focus:?} is a shortcut");
            }
        }
        assert!(control_keeps(checkbox, " "), "Space still toggles the checkbox");
        assert!(control_keeps(select, "ArrowRight") && !control_keeps(checkbox, "ArrowRight"));
        assert!(control_keeps(text, "n") && control_keeps(text, "?"));
    }

    #[test]
    fn the_cheat_sheet_lists_every_mapped_key() {
        let listed: Vec<&str> = SHORTCUTS.iter().flat_map(|s| s.keys.iter().copied()).collect();
        for key in ["Space", "n", "r", "?", "t", "i", "Esc", "+", "-"] {
            assert!(listed.contains(&key), "{key} missing from the cheat sheet");
        }
    }
}
