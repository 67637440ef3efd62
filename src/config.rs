//! Settings from the optional `_ctx/ctx.toml`, and the autopilot front matter of
//! `session.md`.

use std::path::Path;

use serde::Deserialize;

use crate::error::{Error, Result};

/// Default include globs: Markdown, plus code of every supported language.
pub const DEFAULT_INCLUDE: &[&str] = &["*.md", "*.markdown", "*.mdx"];

/// Everything `_ctx/ctx.toml` can set. Unknown keys are an error naming the line.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Settings {
    /// Globs of files to index (matched against the path relative to the root).
    pub include: Vec<String>,
    /// Globs of files to leave out, applied after `include`.
    pub exclude: Vec<String>,
    /// Files larger than this are skipped with a warning.
    pub max_file_bytes: u64,
    /// Sections above this many estimated tokens are split.
    pub max_chunk_tokens: usize,
    /// Hard cap on any retrieval budget; larger requests are clamped.
    pub max_budget: usize,
    /// Extra file extensions to index as code, `ext = "language"`.
    pub code_extensions: std::collections::BTreeMap<String, String>,
    /// Index code files of the supported languages by default.
    pub index_code: bool,
    /// Relay settings.
    pub relay: RelaySettings,
}

/// `[relay]` table of `ctx.toml`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RelaySettings {
    /// Values above this many estimated tokens are boxed.
    pub threshold_tokens: usize,
    /// When set, the threshold is in characters instead of tokens.
    pub threshold_chars: Option<usize>,
}

impl Default for RelaySettings {
    fn default() -> Self {
        RelaySettings {
            threshold_tokens: 10_000,
            threshold_chars: None,
        }
    }
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            include: DEFAULT_INCLUDE.iter().map(|s| s.to_string()).collect(),
            exclude: Vec::new(),
            max_file_bytes: 4 * 1024 * 1024,
            max_chunk_tokens: 600,
            max_budget: 16_000,
            code_extensions: Default::default(),
            index_code: true,
            relay: RelaySettings::default(),
        }
    }
}

impl Settings {
    /// Reads `path` when it exists; defaults otherwise.
    pub fn load(path: &Path) -> Result<Settings> {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Settings::default()),
            Err(e) => return Err(Error::io("cannot read", path, e)),
        };
        Settings::parse(path, &text)
    }

    /// Parses settings text; errors name the file and line.
    pub fn parse(path: &Path, text: &str) -> Result<Settings> {
        let settings: Settings = toml::from_str(text).map_err(|e| Error::Config {
            path: path.to_path_buf(),
            line: e.span().map(|s| 1 + text[..s.start].matches('\n').count()),
            message: e.message().to_string(),
        })?;
        if settings.max_chunk_tokens < 32 {
            return Err(Error::Config {
                path: path.to_path_buf(),
                line: line_of_key(text, "max_chunk_tokens"),
                message: format!(
                    "max_chunk_tokens = {} is too small; use 32 or more (default 600)",
                    settings.max_chunk_tokens
                ),
            });
        }
        Ok(settings)
    }
}

fn line_of_key(text: &str, key: &str) -> Option<usize> {
    text.lines()
        .position(|l| l.trim_start().starts_with(key))
        .map(|i| i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_key_names_line() {
        let err = Settings::parse(Path::new("ctx.toml"), "max_file_bytes = 10\nbogus = 1\n")
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("ctx.toml line 2: unknown field `bogus`"),
            "{err}"
        );
    }

    #[test]
    fn defaults() {
        let s = Settings::parse(Path::new("x"), "").unwrap();
        assert_eq!(s.max_chunk_tokens, 600);
        assert_eq!(s.max_file_bytes, 4 * 1024 * 1024);
    }
}
