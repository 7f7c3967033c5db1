//! Test support: the OpenAI-compatible responder.
#![allow(dead_code)]
pub mod responder;
