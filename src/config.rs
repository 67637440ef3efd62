//! Settings from the optional `_ctx/ctx.toml`, and the autopilot front matter of
//! `session.md`.

use std::path::Path;
use std::time::Duration;

use serde::Deserialize;
use serde_saphyr::{DefaultMessageFormatter, MessageFormatter, Spanned};

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
    /// Source bytes a build reads and chunks before writing them out: what it
    /// holds in memory at once, whatever the size of the project.
    pub build_batch_bytes: u64,
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
    /// Directory of a sentence encoder that re-ranks search hits (relative
    /// to the segment root); none by default.
    pub rerank_model: Option<std::path::PathBuf>,
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
            build_batch_bytes: 128 * 1024 * 1024,
            max_chunk_tokens: 600,
            max_budget: 16_000,
            code_extensions: Default::default(),
            index_code: true,
            relay: RelaySettings::default(),
            rerank_model: None,
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
        // Every budget is clamped to the cap, and nothing fits in 0 tokens:
        // a 0 here would make every `get` and `evidence` answer empty, with
        // errors that blame a budget the user never gave.
        if settings.max_budget == 0 {
            return Err(Error::Config {
                path: path.to_path_buf(),
                line: line_of_key(text, "max_budget"),
                message: "max_budget = 0 leaves no budget for any answer; use a positive cap (default 16000)".into(),
            });
        }
        Ok(settings)
    }
}

/// Quiet time before a round when `session.md` sets none: long enough to take in
/// an editor's save (temp file, rename, chmod) or a `git checkout` as one batch.
pub const DEFAULT_DEBOUNCE_MS: u64 = 1_000;
/// A step's time limit when its `timeout_ms` is left out.
pub const DEFAULT_STEP_TIMEOUT_MS: u64 = 300_000;
/// Rounds in a row, per burst of changes, when `max_rounds_per_turn` is left out.
pub const DEFAULT_MAX_ROUNDS_PER_TURN: u32 = 2;

/// The `autopilot:` table of `session.md`'s YAML front matter, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Autopilot {
    /// `false` makes `ctx autopilot` say so and exit 0.
    pub enabled: bool,
    /// Quiet time after a change before a round starts (`debounce_ms`).
    pub debounce: Duration,
    /// The steps of a round, in order; empty means the default in-process
    /// incremental build, then validate.
    pub steps: Vec<Step>,
    /// Rounds in a row before the watcher pauses for one debounce interval.
    pub max_rounds_per_turn: u32,
}

/// One configured step of a round.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    /// A shell command; `ctx …` runs this same binary on the watched segment.
    pub command: String,
    /// The child is killed when it runs longer.
    pub timeout: Duration,
    /// 1-based line of the step in `session.md`, for messages.
    pub line: usize,
}

impl Default for Autopilot {
    fn default() -> Self {
        Autopilot {
            enabled: true,
            debounce: Duration::from_millis(DEFAULT_DEBOUNCE_MS),
            steps: Vec::new(),
            max_rounds_per_turn: DEFAULT_MAX_ROUNDS_PER_TURN,
        }
    }
}

/// The front matter document: other tools may keep their own keys beside ours.
#[derive(Deserialize)]
struct SessionFrontMatter {
    #[serde(default)]
    autopilot: Option<RawAutopilot>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAutopilot {
    #[serde(default)]
    enabled: Option<bool>,
    #[serde(default)]
    debounce_ms: Option<Spanned<u64>>,
    #[serde(default)]
    steps: Option<Spanned<Vec<RawStep>>>,
    #[serde(default)]
    max_rounds_per_turn: Option<Spanned<u64>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawStep {
    command: Spanned<String>,
    #[serde(default)]
    timeout_ms: Option<Spanned<u64>>,
}

impl Autopilot {
    /// Reads the autopilot table of `session.md` at `path`; `None` when the file,
    /// its front matter or the `autopilot:` key is absent.
    pub fn load(path: &Path) -> Result<Option<Autopilot>> {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(Error::io("cannot read", path, e)),
        };
        Autopilot::parse(path, &text)
    }

    /// Parses `session.md` text; errors name the file and the line.
    pub fn parse(path: &Path, text: &str) -> Result<Option<Autopilot>> {
        let fail = |line: usize, message: String| Error::Config {
            path: path.to_path_buf(),
            line: Some(line),
            message,
        };
        let Some((yaml, first_line)) = yaml_front_matter(text).map_err(|m| fail(1, m))? else {
            return Ok(None);
        };
        if yaml.trim().is_empty() {
            return Ok(None);
        }
        // Lines inside the YAML count from 1; the file's count from the opening fence.
        let file_line = |yaml_line: u64| first_line + (yaml_line.max(1) as usize) - 1;
        let doc: SessionFrontMatter = serde_saphyr::from_str(yaml).map_err(|e| {
            let line = e
                .location()
                .map(|l| file_line(l.line()))
                .unwrap_or(first_line);
            let message = DefaultMessageFormatter.format_message(e.without_snippet());
            // The offending line itself, since terse parser messages ("invalid u64")
            // read better next to it.
            let source = text
                .lines()
                .nth(line - 1)
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .map(|l| format!(" in `{l}`"))
                .unwrap_or_default();
            fail(
                line,
                format!("invalid autopilot front matter: {message}{source}"),
            )
        })?;
        let Some(raw) = doc.autopilot else {
            return Ok(None);
        };
        let line_of = |s: &serde_saphyr::Location| file_line(s.line());
        let mut config = Autopilot {
            enabled: raw.enabled.unwrap_or(true),
            ..Autopilot::default()
        };
        if let Some(d) = raw.debounce_ms {
            if !(10..=3_600_000).contains(&d.value) {
                return Err(fail(
                    line_of(&d.referenced),
                    format!(
                        "autopilot.debounce_ms = {} is out of range; use 10 to 3600000 milliseconds",
                        d.value
                    ),
                ));
            }
            config.debounce = Duration::from_millis(d.value);
        }
        if let Some(m) = raw.max_rounds_per_turn {
            config.max_rounds_per_turn = match u32::try_from(m.value) {
                Ok(v @ 1..=100) => v,
                _ => {
                    return Err(fail(
                        line_of(&m.referenced),
                        format!(
                            "autopilot.max_rounds_per_turn = {} is out of range; use 1 to 100",
                            m.value
                        ),
                    ));
                }
            };
        }
        if let Some(steps) = raw.steps {
            if steps.value.is_empty() {
                return Err(fail(
                    line_of(&steps.referenced),
                    "autopilot.steps is empty; list at least one step, or leave `steps` out \
                     for the default build and validate"
                        .into(),
                ));
            }
            for raw_step in steps.value {
                let line = line_of(&raw_step.command.referenced);
                let command = raw_step.command.value.trim().to_string();
                if command.is_empty() {
                    return Err(fail(line, "a step's `command` is empty".into()));
                }
                let timeout_ms = match raw_step.timeout_ms {
                    None => DEFAULT_STEP_TIMEOUT_MS,
                    Some(t) if (1..=86_400_000).contains(&t.value) => t.value,
                    Some(t) => {
                        return Err(fail(
                            line_of(&t.referenced),
                            format!(
                                "timeout_ms = {} is out of range; use 1 to 86400000 milliseconds",
                                t.value
                            ),
                        ));
                    }
                };
                config.steps.push(Step {
                    command,
                    timeout: Duration::from_millis(timeout_ms),
                    line,
                });
            }
        }
        Ok(Some(config))
    }
}

/// The YAML between a leading `---` line and the next `---` (or `...`) line, with
/// the 1-based file line of its first line. `Ok(None)` when there is none; an
/// error when the fence opens a block that mentions `autopilot:` and never closes
/// (the Markdown chunker reads such a `---` as a thematic break, so only a block
/// that was clearly meant as configuration is worth an error).
fn yaml_front_matter(text: &str) -> std::result::Result<Option<(&str, usize)>, String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.split_inclusive('\n');
    match lines.next() {
        Some(first) if first.trim_end() == "---" => {}
        _ => return Ok(None),
    }
    let start = text.find('\n').map_or(text.len(), |i| i + 1);
    let mut at = start;
    for line in lines {
        let trimmed = line.trim_end();
        if trimmed == "---" || trimmed == "..." {
            return Ok(Some((&text[start..at], 2)));
        }
        at += line.len();
    }
    if text[start..]
        .lines()
        .any(|l| l.trim_start().starts_with("autopilot:"))
    {
        return Err(
            "the front matter opened here is never closed; add a `---` line after it".into(),
        );
    }
    Ok(None)
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
    fn a_zero_budget_cap_is_refused_with_its_line() {
        let err = Settings::parse(
            Path::new("ctx.toml"),
            "include = [\"*.md\"]\nmax_budget = 0\n",
        )
        .unwrap_err()
        .to_string();
        assert_eq!(
            err,
            "ctx.toml line 2: max_budget = 0 leaves no budget for any answer; use a positive cap (default 16000)"
        );
        let ok = Settings::parse(Path::new("ctx.toml"), "max_budget = 1\n").map(|s| s.max_budget);
        assert_eq!(ok.ok(), Some(1));
    }

    fn autopilot(text: &str) -> Result<Option<Autopilot>> {
        Autopilot::parse(Path::new("session.md"), text)
    }

    #[test]
    fn autopilot_front_matter_of_the_issue() {
        let text = "---\nautopilot:\n  enabled: true\n  debounce_ms: 5000\n  steps:\n    - command: ctx build\n      timeout_ms: 30000\n    - command: ctx validate\n      timeout_ms: 5000\n  max_rounds_per_turn: 2\n---\n\n# Notes\n";
        let a = autopilot(text).unwrap().unwrap();
        assert!(a.enabled);
        assert_eq!(a.debounce, Duration::from_millis(5000));
        assert_eq!(a.max_rounds_per_turn, 2);
        assert_eq!(a.steps.len(), 2);
        assert_eq!(a.steps[0].command, "ctx build");
        assert_eq!(a.steps[0].timeout, Duration::from_secs(30));
        assert_eq!(a.steps[0].line, 6);
        assert_eq!(a.steps[1].line, 8);
    }

    #[test]
    fn autopilot_absent_is_none() {
        assert_eq!(autopilot("# Notes\n").unwrap(), None);
        assert_eq!(autopilot("---\ntitle: x\n---\nbody\n").unwrap(), None);
        assert_eq!(autopilot("---\n---\nbody\n").unwrap(), None);
        assert_eq!(autopilot("---\nno closing fence\n").unwrap(), None);
        let a = autopilot("---\nautopilot:\n  enabled: false\n---\n")
            .unwrap()
            .unwrap();
        assert!(!a.enabled);
        assert!(a.steps.is_empty());
    }

    #[test]
    fn autopilot_errors_name_the_line() {
        let cases = [
            ("---\nautopilot:\n  debounce_ms: soon\n---\n", 3),
            ("---\nautopilot:\n  enabled: true\n  bogus: 1\n---\n", 4),
            ("---\nautopilot:\n  debounce_ms: 0\n---\n", 3),
            ("---\nautopilot:\n  steps:\n    - command: ''\n---\n", 4),
            (
                "---\nautopilot:\n  steps:\n    - command: x\n      timeout_ms: 0\n---\n",
                5,
            ),
            ("---\nautopilot:\n  max_rounds_per_turn: 0\n---\n", 3),
            ("---\nautopilot:\n  steps: [\n---\n", 3),
            ("---\nautopilot:\n  enabled: true\n", 1),
        ];
        for (text, line) in cases {
            let err = autopilot(text).unwrap_err();
            let msg = err.to_string();
            assert!(
                matches!(err, Error::Config { line: Some(l), .. } if l == line),
                "{text:?}: expected line {line}: {msg}"
            );
            assert!(
                msg.starts_with(&format!("session.md line {line}: ")),
                "{msg}"
            );
        }
    }

    #[test]
    fn defaults() {
        let s = Settings::parse(Path::new("x"), "").unwrap();
        assert_eq!(s.max_chunk_tokens, 600);
        assert_eq!(s.max_file_bytes, 4 * 1024 * 1024);
    }
}
