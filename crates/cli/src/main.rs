//! `blast`: the command-line shell over `blast-engine`. All logic lives in the engine and in
//! `blast_cli` (argument parsing and formatting); this file only hands it the process's
//! streams and exits with its code. No `print!`: a write that fails (a closed pipe, a full
//! disk) is an error value in `blast_cli::run`, never a panic.

fn main() {
    // `env::args` panics on an argument that is not UTF-8; such a path is read lossily (and
    // then not found) instead.
    let args: Vec<String> = std::env::args_os().skip(1).map(|a| a.to_string_lossy().into_owned()).collect();
    let code = blast_cli::run(&args, &mut std::io::stdout().lock(), &mut std::io::stderr().lock());
    std::process::exit(code);
}
