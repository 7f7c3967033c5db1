//! `llm-responder`: the test responder (`gos_llm::testing`) as a program, for trying
//! `gos build --llm-base-url` by hand. Usage:
//! `cargo run -p gos-llm --features test-support --example llm-responder -- [FIXTURES_DIR] [PORT]`
//! (defaults `fixtures/llm`, an ephemeral port); prints the base URL, then serves until killed.

use gos_llm::testing::Responder;

fn main() -> std::io::Result<()> {
    let mut args = std::env::args().skip(1);
    let dir = args.next().unwrap_or_else(|| "fixtures/llm".into());
    let port: u16 = args.next().and_then(|p| p.parse().ok()).unwrap_or(0);
    let r = Responder::start(dir.into(), port)?;
    println!("{}", r.base_url());
    loop {
        std::thread::sleep(std::time::Duration::from_secs(10));
        eprintln!("llm-responder: {} requests so far", r.requests());
    }
}
