//! The dependency rule of STYLE.md: chunkers are pure, and no layer uses one to
//! its right.

use std::path::Path;

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).expect("read_dir").flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

fn code_of(path: &Path) -> String {
    // `tests.rs` files are `#[cfg(test)]` modules split out of their parent.
    if path.file_name().is_some_and(|n| n == "tests.rs") {
        return String::new();
    }
    let text = std::fs::read_to_string(path).expect("read");
    // Unit tests may use the file system (temp dirs); only shipped code counts.
    match text.find("#[cfg(test)]") {
        Some(i) => text[..i].to_string(),
        None => text,
    }
}

#[test]
fn chunkers_touch_no_fs_clock_env_or_randomness() {
    let mut files = Vec::new();
    rust_files(&super::util::repo().join("src/chunk"), &mut files);
    assert!(files.len() >= 3);
    for f in files {
        let code = code_of(&f);
        for banned in [
            "std::fs",
            "std::env",
            "SystemTime",
            "Instant",
            "getrandom",
            "rand::",
            "std::process",
            "std::net",
        ] {
            assert!(
                !code.contains(banned),
                "{} uses {banned}: chunkers must be pure",
                f.display()
            );
        }
    }
}

#[test]
fn layers_only_use_layers_to_their_left() {
    // (module folder or file, modules it must not use)
    let rules: &[(&str, &[&str])] = &[
        (
            "src/chunk",
            &[
                "crate::sources",
                "crate::pack",
                "crate::catalog",
                "crate::index",
                "crate::pipeline",
                "crate::retrieve",
                "crate::relay",
                "crate::surface",
            ],
        ),
        (
            "src/sources",
            &[
                "crate::chunk",
                "crate::pack",
                "crate::catalog",
                "crate::index",
                "crate::pipeline",
                "crate::retrieve",
                "crate::relay",
                "crate::surface",
            ],
        ),
        (
            "src/pack",
            &[
                "crate::catalog",
                "crate::index",
                "crate::pipeline",
                "crate::retrieve",
                "crate::relay",
                "crate::surface",
            ],
        ),
        (
            "src/catalog",
            &[
                "crate::index",
                "crate::pipeline",
                "crate::retrieve",
                "crate::relay",
                "crate::surface",
            ],
        ),
        (
            "src/index",
            &[
                "crate::pipeline",
                "crate::retrieve",
                "crate::relay",
                "crate::surface",
            ],
        ),
        (
            "src/pipeline",
            &["crate::retrieve", "crate::relay", "crate::surface"],
        ),
        (
            "src/retrieve",
            &["crate::pipeline", "crate::relay", "crate::surface"],
        ),
    ];
    let repo = super::util::repo();
    for (place, banned) in rules {
        let p = repo.join(place);
        let mut files = Vec::new();
        if p.is_dir() {
            rust_files(&p, &mut files);
        } else {
            files.push(p);
        }
        for f in files {
            let code = code_of(&f);
            for b in *banned {
                assert!(
                    !code.contains(b),
                    "{} uses {b}, a layer to its right",
                    f.display()
                );
            }
        }
    }
}

#[test]
fn only_surface_prints() {
    let mut files = Vec::new();
    rust_files(&super::util::repo().join("src"), &mut files);
    for f in files {
        if f.components().any(|c| c.as_os_str() == "surface") || f.ends_with("main.rs") {
            continue;
        }
        let code = code_of(&f);
        for banned in ["println!", "eprintln!", "print!(", "eprint!("] {
            assert!(
                !code.contains(banned),
                "{} prints ({banned}); only surface may",
                f.display()
            );
        }
    }
}
