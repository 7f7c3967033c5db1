#!/usr/bin/env python3
"""Reference token ids and outputs for the encoder-family and Qwen3 reranker tests
(gos-models/src/dense/model_tests.rs, gos-models/src/cross_encoder/qwen3_tests.rs).

Independent of gos and candle: texts are tokenized with the Python `tokenizers` package and run
through float64 numpy forward passes over the weights in model.safetensors:

- bert/: a BERT encoder (the batched forward of scripts/encoder_reference.py), pooled by the
  [CLS] token and by the mean over the attention mask, L2-normalized;
- qwen3-embed/: a Qwen3 decoder (RMSNorm, per-head q/k RMSNorm, rotary embeddings, grouped-query
  causal attention, SiLU-gated MLP), each text alone and unpadded, the last token's final state,
  L2-normalized; queries get the instruction prefix of inputs.json;
- qwen3-rerank/: the same decoder; prompt = prefix + user turn (truncated from its end to fit
  max_length) + suffix, each part tokenized alone without special tokens; score = softmax over
  the output head's [no, yes] logits at the last position, P(yes).

Run once (numpy, safetensors, tokenizers from PyPI):

    GOS_MODEL_FIXTURE_DIR=/tmp/model-fixtures cargo test -p gos-models --lib \\
        write_model_reference_fixtures -- --ignored
    python scripts/model_reference.py /tmp/model-fixtures

and paste the printed constants into the two test files.
"""

import json
import math
import sys
from pathlib import Path

import numpy as np
from safetensors.numpy import load_file
from tokenizers import Tokenizer

sys.path.insert(0, str(Path(__file__).resolve().parent))
from encoder_reference import forward as bert_forward  # noqa: E402


def weights64(d):
    return {k: v.astype(np.float64) for k, v in load_file(str(d / "model.safetensors")).items()}


def summary(v):
    checksum = sum(x * ((i % 7) + 1) for i, x in enumerate(v))
    head = ", ".join(f"{x:.6f}" for x in v[:8])
    return f"([{head}], {checksum:.6f})"


def rust_ids(rows):
    return ", ".join("&[" + ", ".join(map(str, r)) + "]" for r in rows)


def bert(root, texts):
    d = root / "bert"
    cfg = json.loads((d / "config.json").read_text())
    w = weights64(d)
    w = {k[len("bert."):] if k.startswith("bert.") else k: v for k, v in w.items()}
    tok = Tokenizer.from_file(str(d / "tokenizer.json"))
    tok.enable_padding(pad_id=cfg["pad_token_id"], pad_token="[PAD]")
    tok.enable_truncation(max_length=min(256, cfg["max_position_embeddings"]))
    enc = tok.encode_batch(texts)
    ids = np.array([e.ids for e in enc])
    types = np.array([e.type_ids for e in enc])
    mask = np.array([e.attention_mask for e in enc])
    h = bert_forward(w, cfg, ids, types, mask)
    unpadded = [[i for i, m in zip(e.ids, e.attention_mask) if m] for e in enc]
    print(f"const BERT_IDS: [&[u32]; {len(texts)}] = [{rust_ids(unpadded)}];")
    cls = h[:, 0]
    m = mask[:, :, None].astype(np.float64)
    mean = (h * m).sum(1) / m.sum(1)
    for name, pooled in [("BERT_CLS", cls), ("BERT_MEAN", mean)]:
        unit = pooled / np.linalg.norm(pooled, axis=1, keepdims=True)
        rows = ", ".join(summary(v) for v in unit)
        print(f"const {name}: [([f32; 8], f32); {len(texts)}] = [{rows}];")


def rms_norm(x, w, eps):
    return x / np.sqrt((x * x).mean(-1, keepdims=True) + eps) * w


def rope(x, theta):
    # x: (heads, seq, d); rotate-half form over positions 0..seq
    d = x.shape[-1]
    inv = 1.0 / theta ** (np.arange(0, d, 2) / d)
    ang = np.arange(x.shape[1])[:, None] * inv[None, :]
    cos = np.concatenate([np.cos(ang)] * 2, -1)
    sin = np.concatenate([np.sin(ang)] * 2, -1)
    half = d // 2
    rot = np.concatenate([-x[..., half:], x[..., :half]], -1)
    return x * cos + rot * sin


def qwen3_states(w, cfg, ids):
    """Final hidden states (seq, hidden) of one unpadded sequence."""
    eps = cfg["rms_norm_eps"]
    nh, nkv, hd = cfg["num_attention_heads"], cfg["num_key_value_heads"], cfg["head_dim"]
    seq = len(ids)
    x = w["model.embed_tokens.weight"][np.asarray(ids)]
    causal = np.triu(np.full((seq, seq), -np.inf), 1)
    for layer in range(cfg["num_hidden_layers"]):
        p = f"model.layers.{layer}."
        h = rms_norm(x, w[p + "input_layernorm.weight"], eps)
        q = (h @ w[p + "self_attn.q_proj.weight"].T).reshape(seq, nh, hd).transpose(1, 0, 2)
        k = (h @ w[p + "self_attn.k_proj.weight"].T).reshape(seq, nkv, hd).transpose(1, 0, 2)
        v = (h @ w[p + "self_attn.v_proj.weight"].T).reshape(seq, nkv, hd).transpose(1, 0, 2)
        q = rope(rms_norm(q, w[p + "self_attn.q_norm.weight"], eps), cfg["rope_theta"])
        k = rope(rms_norm(k, w[p + "self_attn.k_norm.weight"], eps), cfg["rope_theta"])
        group = nh // nkv
        ctx = np.zeros((nh, seq, hd))
        for head in range(nh):
            kv = head // group
            s = q[head] @ k[kv].T / math.sqrt(hd) + causal
            s = np.exp(s - s.max(-1, keepdims=True))
            s = s / s.sum(-1, keepdims=True)
            ctx[head] = s @ v[kv]
        ctx = ctx.transpose(1, 0, 2).reshape(seq, nh * hd)
        x = x + ctx @ w[p + "self_attn.o_proj.weight"].T
        h = rms_norm(x, w[p + "post_attention_layernorm.weight"], eps)
        gate = h @ w[p + "mlp.gate_proj.weight"].T
        up = h @ w[p + "mlp.up_proj.weight"].T
        x = x + (gate / (1.0 + np.exp(-gate)) * up) @ w[p + "mlp.down_proj.weight"].T
    return rms_norm(x, w["model.norm.weight"], eps)


def qwen3_embed(root, inputs):
    d = root / "qwen3-embed"
    cfg = json.loads((d / "config.json").read_text())
    w = weights64(d)
    tok = Tokenizer.from_file(str(d / "tokenizer.json"))
    tok.no_padding()
    tok.no_truncation()
    texts = list(inputs["texts"]) + [inputs["query_prefix"] + q for q in inputs["queries"]]
    all_ids, rows = [], []
    for t in texts:
        ids = tok.encode(t).ids  # the tokenizer's template appends <|endoftext|>
        last = qwen3_states(w, cfg, ids)[-1]
        all_ids.append(ids)
        rows.append(summary(last / np.linalg.norm(last)))
    print(f"const QWEN3_IDS: [&[u32]; {len(texts)}] = [{rust_ids(all_ids)}];")
    print(f"const QWEN3_VECS: [([f32; 8], f32); {len(texts)}] = [{', '.join(rows)}];")


def qwen3_rerank(root, r):
    d = root / "qwen3-rerank"
    cfg = json.loads((d / "config.json").read_text())
    w = weights64(d)
    tok = Tokenizer.from_file(str(d / "tokenizer.json"))
    tok.no_padding()
    tok.no_truncation()
    head = w["model.embed_tokens.weight"] if cfg["tie_word_embeddings"] else w["lm_head.weight"]
    yes, no = tok.token_to_id("yes"), tok.token_to_id("no")
    prefix = tok.encode(r["prefix"], add_special_tokens=False).ids
    suffix = tok.encode(r["suffix"], add_special_tokens=False).ids
    budget = r["max_length"] - len(prefix) - len(suffix)
    lens, tails, scores = [], [], []
    for doc in r["docs"]:
        user = f"<Instruct>: {r['instruction']}\n<Query>: {r['query']}\n<Document>: {doc}"
        body = tok.encode(user, add_special_tokens=False).ids[:budget]
        ids = prefix + body + suffix
        last = qwen3_states(w, cfg, ids)[-1]
        l_no, l_yes = head[no] @ last, head[yes] @ last
        m = max(l_no, l_yes)
        scores.append(math.exp(l_yes - m) / (math.exp(l_no - m) + math.exp(l_yes - m)))
        lens.append(len(ids))
        tails.append(ids[-20:])
    print(f"// prefix {len(prefix)} tokens, suffix {len(suffix)} tokens")
    print(f"const PROMPT_LENS: [usize; {len(lens)}] = [{', '.join(map(str, lens))}];")
    rows = ", ".join("[" + ", ".join(map(str, t)) + "]" for t in tails)
    print(f"const PROMPT_TAILS: [[u32; 20]; {len(tails)}] = [{rows}];")
    print(f"const P_YES: [f32; {len(scores)}] = [" + ", ".join(f"{s:.6f}" for s in scores) + "];")


def main():
    root = Path(sys.argv[1])
    inputs = json.loads((root / "inputs.json").read_text())
    print("// dense/model_tests.rs")
    bert(root, inputs["texts"])
    qwen3_embed(root, inputs)
    print("// cross_encoder/qwen3_tests.rs")
    qwen3_rerank(root, inputs["rerank"])


if __name__ == "__main__":
    main()
