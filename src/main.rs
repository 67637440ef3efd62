//! The `ctx` binary: everything lives in the library.

fn main() -> std::process::ExitCode {
    ctx::surface::cli::run(std::env::args_os())
}
