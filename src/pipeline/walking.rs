//! The files a build starts from: a walk, or for a refresh whose last walk
//! still holds (see [`crate::sources::unchanged`]), the catalog's files as
//! they stand now.

use std::collections::HashMap;

use crate::catalog::{Catalog, FileRow};
use crate::config::Settings;
use crate::error::Result;
use crate::segment::Segment;
use crate::sources::unchanged::WalkState;
use crate::sources::{self, Walked};

/// Meta key of the last walk's [`WalkState`] (JSON).
const STATE_KEY: &str = "walk_state";

/// The files of `seg` to build from, and the catalog's file rows when they
/// were read to find them. Only a refresh (the implicit build before a
/// search) may reuse the last walk, and only while the settings are those it
/// was made with; every other build walks and records what it saw.
pub(super) fn files(
    seg: &Segment,
    settings: &Settings,
    catalog: &Catalog,
    signature: &str,
    refresh_only: bool,
) -> Result<(Walked, Option<HashMap<String, FileRow>>)> {
    if refresh_only
        && catalog.meta("settings")?.as_deref() == Some(signature)
        && let Some(state) = catalog
            .meta(STATE_KEY)?
            .and_then(|s| serde_json::from_str::<WalkState>(&s).ok())
    {
        let indexed = catalog.files()?;
        let skipped = catalog.skipped()?;
        let known = indexed
            .keys()
            .map(String::as_str)
            .chain(skipped.iter().map(|s| s.path.as_str()));
        if let Some(files) = state.files_now(&seg.root, known) {
            let walked = Walked {
                files,
                warnings: Vec::new(),
                packages: catalog.packages()?,
                seen: Default::default(),
            };
            return Ok((walked, Some(indexed)));
        }
    }
    let at_ns = super::now_ns();
    let mut walked = sources::walk(&seg.root, settings, &|rel| super::is_code(settings, rel))?;
    let state = WalkState::record(at_ns, std::mem::take(&mut walked.seen), &walked.files);
    // Written only when it says something new: a no-op build writes nothing.
    let stored = catalog
        .meta(STATE_KEY)?
        .and_then(|s| serde_json::from_str::<WalkState>(&s).ok());
    if stored.is_none_or(|old| old.superseded_by(&state)) {
        catalog.set_meta(
            STATE_KEY,
            &serde_json::to_string(&state).unwrap_or_default(),
        )?;
    }
    catalog.set_packages(&walked.packages)?;
    Ok((walked, None))
}
