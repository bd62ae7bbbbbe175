//! `blast`: the command-line shell over `blast-engine`. All logic lives in the engine and in
//! `blast_cli` (argument parsing and formatting); this file only wires stdout and exit codes.

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let out = blast_cli::main_with_args(&args);
    if !out.stdout.is_empty() {
        print!("{}", out.stdout);
    }
    if !out.stderr.is_empty() {
        eprint!("{}", out.stderr);
    }
    std::process::exit(out.code);
}
