//! `llm-responder`: the test responder (tests/support/responder.rs) as a program, for trying `gos build --llm-base-url`
//! by hand. Usage: `cargo run -p gos-build --example llm-responder -- [FIXTURES_DIR] [PORT]` (defaults `fixtures/llm`, an
//! ephemeral port); prints the base URL, then serves until killed.

#[allow(dead_code)]
#[path = "../tests/support/responder.rs"]
mod responder;

fn main() -> std::io::Result<()> {
    let mut args = std::env::args().skip(1);
    let dir = args.next().unwrap_or_else(|| "fixtures/llm".into());
    let port: u16 = args.next().and_then(|p| p.parse().ok()).unwrap_or(0);
    let r = responder::Responder::start(dir.into(), port)?;
    println!("{}", r.base_url());
    loop {
        std::thread::sleep(std::time::Duration::from_secs(10));
        eprintln!("llm-responder: {} requests so far", r.requests());
    }
}
