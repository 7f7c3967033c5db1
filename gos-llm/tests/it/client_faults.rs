//! The chat client against endpoints that misbehave, over real TCP on 127.0.0.1: a port with
//! nothing listening (fail fast after a few connection refusals, counted in attempts, not
//! time), and a server that echoes the API key in its error bodies (the key never reaches an
//! error, a log or a report).

use gos_llm::cache::LlmCache;
use gos_llm::client::{
    ChatClient, ClientConfig, ClientError, Message, REDACTED, UNREACHABLE_AFTER,
};
use gos_llm::service::{Failure, LlmService, Prompt};
use gos_llm::testing::{Fault, Responder};
use std::path::Path;
use std::time::Duration;

const MODEL: &str = "fixture-model";
const KEY: &str = "sk-live-0123456789abcdef";

fn config(base_url: String, max_retries: u32) -> ClientConfig {
    ClientConfig {
        base_url,
        model: MODEL.into(),
        api_key: Some(KEY.into()),
        timeout: Duration::from_secs(5),
        max_retries,
        backoff_base: Duration::from_millis(5),
    }
}

fn prompts(n: usize) -> Vec<Prompt> {
    (0..n)
        .map(|i| Prompt::new("test/v1", "system", format!("Task: prompt {i}")))
        .collect()
}

/// A loopback port with nothing listening.
fn closed_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

#[test]
fn an_unreachable_endpoint_costs_three_attempts_for_a_whole_batch() {
    let tmp = tempfile::tempdir().unwrap();
    let base = format!("http://127.0.0.1:{}/v1", closed_port());
    // Ten retries allowed per request, ten requests: 110 attempts without failing fast.
    let client = ChatClient::new(config(base, 10)).unwrap();
    let cache = LlmCache::open(&tmp.path().join("cache.jsonl"), None).unwrap();
    let service = LlmService::new(Some(client), MODEL.into(), cache, 1, None);
    let results = service.run_batch(&prompts(10), &|| {});
    assert_eq!(results.len(), 10);
    for r in &results {
        match r {
            Err(Failure::Client(ClientError::Unreachable { .. })) => {}
            other => panic!("expected unreachable, got {other:?}"),
        }
    }
    let attempts = service.client().unwrap().attempts_made();
    assert_eq!(attempts, u64::from(UNREACHABLE_AFTER));
    let stats = service.stats();
    assert_eq!(stats.failures.get("unreachable"), Some(&10), "{stats:?}");
    match &results[9] {
        Err(Failure::Client(ClientError::Unreachable { attempts, reason })) => {
            assert_eq!(*attempts, 0);
            assert!(
                reason.contains("gave up after 3 connection failures"),
                "{reason}"
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_key_echoed_by_the_server_never_reaches_an_error() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/llm/replies");
    let r = Responder::start(fixtures, 0).expect("responder starts");
    // 401 fails at once; 500 is retried, and each retry echoes the key again.
    r.push_faults([Fault::EchoAuthorization(401)]);
    r.push_faults(vec![Fault::EchoAuthorization(500); 3]);
    let client = ChatClient::new(config(r.base_url(), 2)).unwrap();
    let messages = vec![Message {
        role: "user".into(),
        content: "Task: anything".into(),
    }];
    for expected in [401u16, 500] {
        let err = client.chat(&messages, 1).unwrap_err();
        let shown = format!("{err} {err:?}");
        assert!(!shown.contains(KEY), "{shown}");
        assert!(!shown.contains("0123456789abcdef"), "{shown}");
        match &err {
            ClientError::Status { status, body, .. } => {
                assert_eq!(*status, expected);
                assert!(
                    body.contains("invalid credentials") && body.contains(REDACTED),
                    "{body}"
                );
            }
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(r.requests(), 4);
}
