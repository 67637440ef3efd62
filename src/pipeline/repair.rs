//! What a build does about derived state it cannot read: an index that will
//! not open is rebuilt by any build (see `SearchIndex::open_repairing`); a
//! damaged catalog, which also records boxed tool outputs, only by a full
//! build, which sets the file aside rather than deleting it.

use super::{BuildOptions, BuildReport, Opened};
use crate::catalog;
use crate::error::{Error, Result, Warning, WarningKind};
use crate::pack::lock::{FileLock, LockKind};
use crate::segment::{CTX_DIR, Segment};

/// Runs `build`; when it meets a damaged catalog and `opts` asks for a full
/// build, sets the catalog aside and runs it once more.
pub(super) fn setting_aside_damaged_catalog(
    seg: &Segment,
    opts: &BuildOptions<'_>,
    build: impl Fn() -> Result<(BuildReport, Opened)>,
) -> Result<(BuildReport, Opened)> {
    match build() {
        Err(Error::DamagedCatalog { path, message }) if opts.full => {
            let aside = {
                let _lock =
                    FileLock::acquire(&seg.build_lock(), LockKind::Build, opts.lock_timeout)?;
                catalog::set_aside(&path)?
            };
            let (mut report, opened) = build()?;
            let name = |p: &std::path::Path| {
                p.file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default()
            };
            report.warnings.insert(
                0,
                Warning::file(
                    format!("{CTX_DIR}/{}", name(&path)),
                    WarningKind::CatalogRebuilt,
                    format!(
                        "the catalog was damaged ({message}); set it aside as {} and rebuilt it from the sources",
                        name(&aside)
                    ),
                ),
            );
            Ok((report, opened))
        }
        other => other,
    }
}

/// The warning of an index replaced because it could not be read (`why`);
/// the empty index lags the catalog, so that build is a full one.
pub(super) fn index_rebuilt(why: String) -> Warning {
    Warning::file(
        format!("{CTX_DIR}/index"),
        WarningKind::IndexRebuilt,
        format!("the search index could not be read ({why}); rebuilt it from the sources"),
    )
}
