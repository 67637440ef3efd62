//! Reading one source file: size cap, binary and UTF-8 checks, SHA-256.

use super::walk::SourceEntry;
use crate::error::WarningKind;
use crate::hash::sha256_hex;

/// A source file read into memory.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// The file's text (valid UTF-8, BOM and CRLF kept as on disk).
    pub text: String,
    /// SHA-256 of the bytes on disk.
    pub sha256: String,
}

/// Reads `entry`, or says why it is skipped (the build goes on): the kind of
/// warning and its message.
pub fn read_source(entry: &SourceEntry, max_bytes: u64) -> Result<Loaded, (WarningKind, String)> {
    let too_large = |size: u64| {
        (
            WarningKind::TooLarge,
            format!(
                "skipped: {size} bytes is over max_file_bytes ({max_bytes}); raise max_file_bytes in _ctx/ctx.toml to index it"
            ),
        )
    };
    if entry.size > max_bytes {
        return Err(too_large(entry.size));
    }
    let bytes = std::fs::read(&entry.abs).map_err(|e| {
        (
            WarningKind::Unreadable,
            format!("skipped: cannot read ({e})"),
        )
    })?;
    if bytes.len() as u64 > max_bytes {
        return Err(too_large(bytes.len() as u64));
    }
    let probe = &bytes[..bytes.len().min(8192)];
    if let Some(at) = probe.iter().position(|&b| b == 0) {
        return Err((
            WarningKind::Binary,
            format!("skipped: binary file (NUL byte at offset {at})"),
        ));
    }
    let sha256 = sha256_hex(&bytes);
    match String::from_utf8(bytes) {
        Ok(text) => Ok(Loaded { text, sha256 }),
        Err(e) => {
            let at = e.utf8_error().valid_up_to();
            let line = 1 + e.as_bytes()[..at].iter().filter(|&&b| b == b'\n').count();
            Err((
                WarningKind::NotUtf8,
                format!(
                    "skipped: invalid UTF-8 at line {line} (byte {at}); convert the file to UTF-8 to index it"
                ),
            ))
        }
    }
}
