//! The LLM service: the chat client behind the response cache, a request budget, a
//! concurrency limit, and counters for the build report.
//!
//! [`LlmService::run_batch`] answers a list of prompts in order. Cache hits come first and
//! cost nothing; misses receive budget tickets **in list order** (so which prompts are cut when
//! the budget runs out does not depend on thread timing), then the ticketed ones are sent by
//! at most `concurrency` worker threads. A reply counts only when its content is a JSON
//! object (a Markdown code fence around it is removed); only such replies are cached.

use crate::cache::{CacheEntry, LlmCache, cache_key_at, prompt_hash};
use crate::client::{ChatClient, ClientError, Message};
use serde::Serialize;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

/// A rendered prompt.
#[derive(Debug, Clone, PartialEq)]
pub struct Prompt {
    /// Template id and version, part of the cache key (e.g. `validate-relations/v1`).
    pub template: &'static str,
    /// System and user messages.
    pub messages: Vec<Message>,
    /// Sampling temperature sent with the prompt; 0 for every gos prompt except SkillFlow's
    /// retries ([`crate::skillflow`]). A non-zero temperature is part of the cache key.
    pub temperature: f64,
}

impl Prompt {
    /// A system + user prompt.
    pub fn new(template: &'static str, system: &str, user: String) -> Self {
        Prompt {
            template,
            messages: vec![
                Message {
                    role: "system".into(),
                    content: system.to_string(),
                },
                Message {
                    role: "user".into(),
                    content: user,
                },
            ],
            temperature: 0.0,
        }
    }

    /// The same prompt sent at `temperature` (SkillFlow raises it by 0.3 per retry).
    pub fn with_temperature(mut self, temperature: f64) -> Self {
        self.temperature = temperature;
        self
    }

    /// SHA-256 of the rendered messages ([`prompt_hash`]).
    pub fn hash(&self) -> String {
        prompt_hash(&self.messages)
    }
}

/// Why a prompt got no usable reply.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Failure {
    /// `--offline` and the reply is not cached.
    #[error("not in the cache (offline)")]
    Offline,
    /// The request budget was spent before this prompt.
    #[error("request budget exhausted")]
    Budget,
    /// The request failed.
    #[error("{0}")]
    Client(ClientError),
    /// The reply's content is not a JSON object.
    #[error("malformed JSON reply: {0}")]
    Malformed(String),
    /// No result was recorded for the prompt (a worker stopped before answering it).
    #[error("no reply was recorded for this prompt")]
    Unanswered,
}

impl Failure {
    /// Report counter key.
    pub fn kind(&self) -> &'static str {
        match self {
            Failure::Offline => "offline_miss",
            Failure::Budget => "budget",
            Failure::Client(e) => e.kind(),
            Failure::Malformed(_) => "malformed_json",
            Failure::Unanswered => "unanswered",
        }
    }
}

/// A usable reply: the parsed JSON object and whether it came from the cache.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    /// The reply content, parsed.
    pub json: serde_json::Value,
    /// Served from the cache (no HTTP call).
    pub cached: bool,
    /// Hash of the rendered prompt.
    pub prompt_hash: String,
}

/// Counters of all requests of one service (one build or one retrieve).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct RequestStats {
    /// Prompts answered from the cache.
    pub cache_hits: u64,
    /// Prompts sent over HTTP (each may take several attempts).
    pub calls: u64,
    /// Calls that gave a usable reply.
    pub calls_ok: u64,
    /// HTTP attempts beyond the first of each call.
    pub retries: u64,
    /// Prompt tokens of fresh calls (as the endpoint reports them).
    pub prompt_tokens: u64,
    /// Completion tokens of fresh calls.
    pub completion_tokens: u64,
    /// Failed prompts by kind (`timeout`, `unreachable`, `http_429`, `http_5xx`, `http_4xx`,
    /// `bad_reply`, `malformed_json`, `budget`, `offline_miss`, `unanswered`).
    pub failures: BTreeMap<String, u64>,
    /// Request budget (`--llm-max-requests`), if any.
    pub budget: Option<u64>,
    /// Cache entries present at the start.
    pub cache_entries_loaded: usize,
    /// Cache lines that could not be read.
    pub cache_bad_lines: usize,
}

/// Client (absent offline) + cache + budget + counters.
pub struct LlmService {
    client: Option<ChatClient>,
    model: String,
    cache: LlmCache,
    concurrency: usize,
    budget: Option<u64>,
    spent: AtomicU64,
    stats: Mutex<RequestStats>,
}

/// The guarded value, also after a panic elsewhere poisoned the lock (counters and results stay
/// usable: every update is a single step).
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Parse a reply's content as a JSON object, removing a surrounding Markdown code fence.
///
/// # Errors
/// A message when the content is not a JSON object.
pub fn parse_json_object(content: &str) -> Result<serde_json::Value, String> {
    let mut s = content.trim();
    if let Some(rest) = s.strip_prefix("```") {
        s = rest.trim_start_matches("json").trim_start_matches("JSON");
        s = s.trim_end().trim_end_matches("```");
    }
    match serde_json::from_str::<serde_json::Value>(s.trim()) {
        Ok(v) if v.is_object() => Ok(v),
        Ok(_) => Err("not a JSON object".into()),
        Err(e) => Err(e.to_string()),
    }
}

impl LlmService {
    /// A service. `client` is `None` offline (cache only). `concurrency` is at least 1.
    pub fn new(
        client: Option<ChatClient>,
        model: String,
        cache: LlmCache,
        concurrency: usize,
        budget: Option<u64>,
    ) -> Self {
        let stats = RequestStats {
            budget,
            cache_entries_loaded: cache.loaded(),
            cache_bad_lines: cache.bad_lines(),
            ..RequestStats::default()
        };
        LlmService {
            client,
            model,
            cache,
            concurrency: concurrency.max(1),
            budget,
            spent: AtomicU64::new(0),
            stats: Mutex::new(stats),
        }
    }

    /// Model id.
    pub fn model(&self) -> &str {
        &self.model
    }

    /// Whether no endpoint is used (cache only).
    pub fn offline(&self) -> bool {
        self.client.is_none()
    }

    /// The chat client; `None` offline.
    pub fn client(&self) -> Option<&ChatClient> {
        self.client.as_ref()
    }

    /// The cache.
    pub fn cache(&self) -> &LlmCache {
        &self.cache
    }

    /// Counters so far.
    pub fn stats(&self) -> RequestStats {
        lock(&self.stats).clone()
    }

    fn fail(&self, f: &Failure) {
        *lock(&self.stats)
            .failures
            .entry(f.kind().to_string())
            .or_insert(0) += 1;
    }

    /// Answer `prompts` in order (see the module docs). `on_done` is called once per prompt.
    pub fn run_batch(
        &self,
        prompts: &[Prompt],
        on_done: &(dyn Fn() + Sync),
    ) -> Vec<Result<Answer, Failure>> {
        let mut out: Vec<Option<Result<Answer, Failure>>> = vec![None; prompts.len()];
        let keys: Vec<String> = prompts
            .iter()
            .map(|p| cache_key_at(&self.model, p.template, &p.messages, p.temperature))
            .collect();
        let mut to_send = Vec::new();
        for (i, p) in prompts.iter().enumerate() {
            if let Some(e) = self.cache.get(&keys[i])
                && let Ok(json) = parse_json_object(&e.content)
            {
                lock(&self.stats).cache_hits += 1;
                out[i] = Some(Ok(Answer {
                    json,
                    cached: true,
                    prompt_hash: e.prompt_hash,
                }));
                on_done();
                continue;
            }
            let failure = if self.client.is_none() {
                Some(Failure::Offline)
            } else if self
                .budget
                .is_some_and(|b| self.spent.load(Ordering::SeqCst) >= b)
            {
                Some(Failure::Budget)
            } else {
                self.spent.fetch_add(1, Ordering::SeqCst);
                None
            };
            match failure {
                Some(f) => {
                    self.fail(&f);
                    out[i] = Some(Err(f));
                    on_done();
                }
                None => to_send.push(i),
            }
            let _ = p;
        }
        if let Some(client) = &self.client {
            let next = AtomicUsize::new(0);
            let results: Mutex<Vec<(usize, Result<Answer, Failure>)>> = Mutex::new(Vec::new());
            let workers = self.concurrency.min(to_send.len());
            std::thread::scope(|s| {
                for _ in 0..workers {
                    s.spawn(|| {
                        loop {
                            let j = next.fetch_add(1, Ordering::SeqCst);
                            let Some(&i) = to_send.get(j) else { break };
                            let r = self.send(client, &prompts[i], &keys[i], i as u64);
                            lock(&results).push((i, r));
                            on_done();
                        }
                    });
                }
            });
            for (i, r) in results.into_inner().unwrap_or_else(PoisonError::into_inner) {
                out[i] = Some(r);
            }
        }
        out.into_iter()
            .map(|r| {
                r.unwrap_or_else(|| {
                    let f = Failure::Unanswered;
                    self.fail(&f);
                    Err(f)
                })
            })
            .collect()
    }

    fn send(
        &self,
        client: &ChatClient,
        prompt: &Prompt,
        key: &str,
        salt: u64,
    ) -> Result<Answer, Failure> {
        lock(&self.stats).calls += 1;
        let reply = match client.chat_at(&prompt.messages, salt, prompt.temperature) {
            Ok(r) => r,
            Err(e) => {
                let attempts = match &e {
                    ClientError::Timeout { attempts }
                    | ClientError::Unreachable { attempts, .. }
                    | ClientError::Status { attempts, .. } => *attempts,
                    ClientError::BadReply { .. } => 1,
                };
                lock(&self.stats).retries += attempts.saturating_sub(1) as u64;
                let f = Failure::Client(e);
                self.fail(&f);
                return Err(f);
            }
        };
        {
            let mut st = lock(&self.stats);
            st.retries += reply.attempts.saturating_sub(1) as u64;
            st.prompt_tokens += reply.usage.prompt_tokens;
            st.completion_tokens += reply.usage.completion_tokens;
        }
        let json = match parse_json_object(&reply.content) {
            Ok(j) => j,
            Err(e) => {
                let f = Failure::Malformed(e);
                self.fail(&f);
                return Err(f);
            }
        };
        lock(&self.stats).calls_ok += 1;
        let hash = prompt.hash();
        let entry = CacheEntry {
            key: key.to_string(),
            model: self.model.clone(),
            template: prompt.template.to_string(),
            prompt_hash: hash.clone(),
            messages: prompt.messages.clone(),
            content: reply.content,
            usage: reply.usage,
        };
        if let Err(e) = self.cache.insert(entry) {
            tracing::warn!("{e}");
        }
        Ok(Answer {
            json,
            cached: false,
            prompt_hash: hash,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fenced_json_is_accepted_and_garbage_is_not() {
        assert!(parse_json_object("```json\n{\"a\": 1}\n```").is_ok());
        assert!(parse_json_object(" {\"relations\": []} ").is_ok());
        assert!(parse_json_object("[1]").is_err());
        assert!(parse_json_object("{\"relations\": [").is_err());
    }
}
