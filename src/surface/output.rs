//! `Printer`: human output or `--json`, colour policy, and TTY sanitizing.

use std::io::{IsTerminal, Write};

use serde::Serialize;

/// When to colour output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Default)]
pub enum ColorChoice {
    /// Colour when stdout is a terminal and `NO_COLOR` is unset.
    #[default]
    Auto,
    /// Always colour.
    Always,
    /// Never colour.
    Never,
}

/// Where command output goes and how it looks.
pub struct Printer {
    /// Emit JSON instead of human text.
    pub json: bool,
    /// Use ANSI colours.
    pub color: bool,
    /// Suppress notes and warnings.
    pub quiet: bool,
    /// Extra detail.
    pub verbose: u8,
}

impl Printer {
    /// Decides colour from the choice, the terminal and `NO_COLOR`.
    pub fn new(json: bool, color: ColorChoice, quiet: bool, verbose: u8) -> Printer {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        let color = match color {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => !no_color && std::io::stdout().is_terminal(),
        };
        Printer {
            json,
            color: color && !json,
            quiet,
            verbose,
        }
    }

    /// Prints a value as one JSON document.
    pub fn json<T: Serialize>(&self, value: &T) {
        let mut out = std::io::stdout().lock();
        let _ = serde_json::to_writer_pretty(&mut out, value);
        let _ = writeln!(out);
    }

    /// Prints human text; content inside it must already be [`sanitize`]d.
    pub fn text(&self, s: &str) {
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(s.as_bytes());
    }

    /// A bold/accented fragment when colour is on.
    pub fn accent(&self, s: &str) -> String {
        if self.color {
            format!("\x1b[1;36m{s}\x1b[0m")
        } else {
            s.to_string()
        }
    }

    /// A dim fragment when colour is on.
    pub fn dim(&self, s: &str) -> String {
        if self.color {
            format!("\x1b[2m{s}\x1b[0m")
        } else {
            s.to_string()
        }
    }

    /// A warning on stderr (unless quiet).
    pub fn warn(&self, s: &str) {
        if !self.quiet {
            eprintln!("warning: {}", sanitize(s).trim_end());
        }
    }

    /// A note on stderr (unless quiet).
    pub fn note(&self, s: &str) {
        if !self.quiet {
            eprintln!("{}", sanitize(s).trim_end());
        }
    }
}

/// [`sanitize`] for a one-line field (a path, a heading, a symbol name): a
/// newline, tab or carriage return in it is shown escaped (`a\\nb.md`), so a
/// file named with one does not break the line that lists it.
pub fn sanitize_name(s: &str) -> String {
    if !s.chars().any(char::is_control) {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len() + 2);
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

/// Replaces terminal control characters in file-derived text (escape sequences
/// could otherwise drive the user's terminal), keeping newline and tab. A
/// carriage return ends a line: CRLF (Windows) and a lone CR (classic Mac
/// files, progress lines in a tool's log) print as a newline, since a bare
/// return would let later text overwrite what the line showed.
pub fn sanitize(s: &str) -> String {
    if !s.chars().any(|c| c.is_control() && c != '\n' && c != '\t') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' => {
                chars.next_if_eq(&'\n');
                out.push('\n');
            }
            '\n' | '\t' => out.push(c),
            c if c.is_control() => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_ends_stay_and_terminal_controls_go() {
        assert_eq!(sanitize("a\r\nb\rc\n\td"), "a\nb\nc\n\td");
        assert_eq!(sanitize("\x1b[2Jx\x07"), "\u{fffd}[2Jx\u{fffd}");
        assert_eq!(sanitize("plain"), "plain");
        assert_eq!(sanitize_name("a\r\nb"), "a\\r\\nb");
    }
}
