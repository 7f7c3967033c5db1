//! Query rewrite against a real HTTP server on 127.0.0.1 (the test responder of
//! `gos_llm::testing`, replying from `fixtures/llm/replies`): the first request goes out, the
//! same task is then served by the cache offline, and an uncached task falls back.

use gos_llm::cache::LlmCache;
use gos_llm::client::{ChatClient, ClientConfig};
use gos_llm::rewrite::{RewriteSource, rewrite_query};
use gos_llm::service::LlmService;
use gos_llm::testing::Responder;
use std::path::Path;
use std::time::Duration;

const MODEL: &str = "fixture-model";

fn client(base_url: String) -> ClientConfig {
    ClientConfig {
        base_url,
        model: MODEL.into(),
        api_key: Some("sk-test-secret-never-written".into()),
        timeout: Duration::from_secs(5),
        max_retries: 2,
        backoff_base: Duration::from_millis(5),
    }
}

#[test]
fn query_rewrite_goes_through_the_client_and_the_cache() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/llm/replies");
    let r = Responder::start(fixtures, 0).expect("responder starts");
    let tmp = tempfile::tempdir().unwrap();
    let service = |offline: bool| {
        let cache = LlmCache::open(&tmp.path().join("cache.jsonl"), None).unwrap();
        let client = (!offline).then(|| ChatClient::new(client(r.base_url())).unwrap());
        LlmService::new(client, MODEL.into(), cache, 1, None)
    };
    let task = "Plot the monthly sales in sales.csv as a bar chart";
    let first = rewrite_query(Some(&service(false)), task);
    assert_eq!(first.source, RewriteSource::Llm { cached: false });
    assert_eq!(first.schema.goal, "Draw a bar chart from a CSV table");
    assert!(first.text.ends_with(task) && first.text.contains("\ndataframe\n"));
    let second = rewrite_query(Some(&service(true)), task);
    assert_eq!(second.source, RewriteSource::Llm { cached: true });
    assert_eq!(r.requests(), 1);
    let other = rewrite_query(Some(&service(true)), "another task");
    assert!(matches!(other.source, RewriteSource::Fallback { .. }));
    assert_eq!(other.text, "another task");
}
