//! `ctx relay check`: prompt-case expectations against recorded transcripts.

use std::process::ExitCode;

use crate::error::Error;
use crate::surface::output::{Printer, sanitize};

fn read(path: &std::path::Path) -> anyhow::Result<String> {
    Ok(std::fs::read_to_string(path).map_err(|e| Error::io("cannot read", path, e))?)
}

pub(super) fn check_cmd(
    p: &Printer,
    case: Option<&std::path::Path>,
    transcript: Option<&std::path::Path>,
    glob: Option<&str>,
    suffix: &str,
) -> anyhow::Result<ExitCode> {
    use crate::relay::check;
    let pairs: Vec<(std::path::PathBuf, std::path::PathBuf)> = match (glob, case, transcript) {
        (Some(g), _, _) => {
            let matcher = globset::Glob::new(g)
                .map_err(|e| Error::Invalid(format!("invalid --glob `{g}`: {e}")))?
                .compile_matcher();
            let dir = std::path::Path::new(g)
                .ancestors()
                .find(|a| {
                    !a.as_os_str().is_empty() && !a.to_string_lossy().contains(['*', '?', '['])
                })
                .unwrap_or(std::path::Path::new("."))
                .to_path_buf();
            let mut found = Vec::new();
            for entry in ignore::WalkBuilder::new(&dir)
                .standard_filters(false)
                .build()
                .flatten()
            {
                let path = entry.path().to_path_buf();
                if matcher.is_match(&path) && path.extension().is_some_and(|e| e == "md") {
                    let stem = path
                        .file_stem()
                        .map(|s| s.to_string_lossy().into_owned())
                        .unwrap_or_default();
                    let t = path.with_file_name(format!("{stem}{suffix}"));
                    // Other Markdown (a README) matches too; a case has its transcript beside it.
                    if t.exists() {
                        found.push((path, t));
                    } else {
                        p.note(&format!(
                            "skipped {}: no {} beside it",
                            path.display(),
                            t.display()
                        ));
                    }
                }
            }
            found.sort();
            if found.is_empty() {
                return Err(Error::Invalid(format!(
                    "no case files with a `<case>{suffix}` transcript match `{g}`"
                ))
                .into());
            }
            found
        }
        (None, Some(c), Some(t)) => vec![(c.to_path_buf(), t.to_path_buf())],
        _ => {
            return Err(
                Error::Invalid("give a CASE.md and --transcript FILE, or --glob".into()).into(),
            );
        }
    };
    let mut all_ok = true;
    let mut reports = Vec::new();
    for (case_path, t_path) in &pairs {
        let (case, _) = check::parse_case(&read(case_path)?)
            .map_err(|e| Error::Invalid(format!("{}: {e}", case_path.display())))?;
        let calls = check::parse_transcript(&read(t_path)?)
            .map_err(|e| Error::Invalid(format!("{}: {e}", t_path.display())))?;
        let verdicts = check::check(&case, &calls);
        let ok = verdicts.iter().all(|v| v.passed);
        all_ok &= ok;
        if p.json {
            reports.push(serde_json::json!({
                "case": case_path.display().to_string(),
                "transcript": t_path.display().to_string(),
                "passed": ok,
                "expectations": verdicts,
            }));
        } else {
            p.text(&format!(
                "{} {} ({})\n",
                if ok { "PASS" } else { "FAIL" },
                case_path.display(),
                t_path.display()
            ));
            for v in &verdicts {
                p.text(&format!(
                    "  {} {} — {}\n",
                    if v.passed { "passed" } else { "failed" },
                    v.expectation,
                    sanitize(&v.reason)
                ));
            }
        }
    }
    if p.json {
        p.json(&reports);
    }
    Ok(if all_ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
