#!/usr/bin/env python3
"""Reference logits for the cross-encoder tests (gos-models/src/cross_encoder/tests.rs).

An implementation independent of gos and candle: the pair is tokenized with the Python
`tokenizers` package (query and document separately, without special tokens), truncated here
(query capped at max_length // 2 tokens, then the document cut so the pair fits), wrapped in
the architecture's special-token template written out below, and run through a float64 numpy
forward pass of BertForSequenceClassification / XLMRobertaForSequenceClassification over the
weights in model.safetensors. Each pair runs alone, without padding.

Run once, in a scratch venv with numpy, safetensors and tokenizers from PyPI:

    GOS_CE_FIXTURE_DIR=/tmp/ce-fixtures \
        cargo test -p gos-models cross_encoder_write_reference_fixtures -- --ignored
    python scripts/cross_encoder_reference.py /tmp/ce-fixtures

and paste the printed constants into tests.rs. The constants there were produced this way with
numpy 2.4.6, safetensors 0.8.0 and tokenizers 0.23.3.
"""

import json
import math
import sys
from pathlib import Path

import numpy as np
from safetensors.numpy import load_file
from tokenizers import Tokenizer

_erf = np.vectorize(math.erf)


def gelu(x):
    return 0.5 * x * (1.0 + _erf(x / math.sqrt(2.0)))


def layer_norm(x, w, b, eps):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * w + b


def linear(x, weights, name):
    return x @ weights[name + ".weight"].T + weights[name + ".bias"]


def encoder(x, weights, prefix, cfg):
    heads = cfg["num_attention_heads"]
    hidden = cfg["hidden_size"]
    d = hidden // heads
    eps = cfg["layer_norm_eps"]
    seq = x.shape[0]
    for layer in range(cfg["num_hidden_layers"]):
        p = f"{prefix}.encoder.layer.{layer}"

        def split(t):
            return t.reshape(seq, heads, d).transpose(1, 0, 2)

        q = split(linear(x, weights, f"{p}.attention.self.query"))
        k = split(linear(x, weights, f"{p}.attention.self.key"))
        v = split(linear(x, weights, f"{p}.attention.self.value"))
        scores = q @ k.transpose(0, 2, 1) / math.sqrt(d)
        scores = scores - scores.max(-1, keepdims=True)
        probs = np.exp(scores)
        probs = probs / probs.sum(-1, keepdims=True)
        ctx = (probs @ v).transpose(1, 0, 2).reshape(seq, hidden)
        att = linear(ctx, weights, f"{p}.attention.output.dense")
        x = layer_norm(
            x + att,
            weights[f"{p}.attention.output.LayerNorm.weight"],
            weights[f"{p}.attention.output.LayerNorm.bias"],
            eps,
        )
        ff = gelu(linear(x, weights, f"{p}.intermediate.dense"))
        out = linear(ff, weights, f"{p}.output.dense")
        x = layer_norm(
            x + out,
            weights[f"{p}.output.LayerNorm.weight"],
            weights[f"{p}.output.LayerNorm.bias"],
            eps,
        )
    return x


def bert_logits(ids, types, weights, cfg):
    e = "bert.embeddings"
    x = (
        weights[f"{e}.word_embeddings.weight"][ids]
        + weights[f"{e}.position_embeddings.weight"][np.arange(len(ids))]
        + weights[f"{e}.token_type_embeddings.weight"][types]
    )
    x = layer_norm(x, weights[f"{e}.LayerNorm.weight"], weights[f"{e}.LayerNorm.bias"],
                   cfg["layer_norm_eps"])
    h = encoder(x, weights, "bert", cfg)
    pooled = np.tanh(linear(h[0], weights, "bert.pooler.dense"))
    return linear(pooled, weights, "classifier")


def xlmr_logits(ids, weights, cfg):
    e = "roberta.embeddings"
    pad = cfg["pad_token_id"]
    ids = np.asarray(ids)
    mask = (ids != pad).astype(np.int64)
    positions = np.cumsum(mask) * mask + pad
    x = (
        weights[f"{e}.word_embeddings.weight"][ids]
        + weights[f"{e}.position_embeddings.weight"][positions]
        + weights[f"{e}.token_type_embeddings.weight"][np.zeros_like(ids)]
    )
    x = layer_norm(x, weights[f"{e}.LayerNorm.weight"], weights[f"{e}.LayerNorm.bias"],
                   cfg["layer_norm_eps"])
    h = encoder(x, weights, "roberta", cfg)
    dense = np.tanh(linear(h[0], weights, "classifier.dense"))
    return linear(dense, weights, "classifier.out_proj")


def pair_ids(tok, arch, query, doc, max_length):
    q = tok.encode(query, add_special_tokens=False).ids[: max_length // 2]
    d = tok.encode(doc, add_special_tokens=False).ids
    if arch == "bert":
        cls, sep = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
        d = d[: max_length - len(q) - 3]
        ids = [cls] + q + [sep] + d + [sep]
        types = [0] * (len(q) + 2) + [1] * (len(d) + 1)
    else:
        bos, eos = tok.token_to_id("<s>"), tok.token_to_id("</s>")
        d = d[: max_length - len(q) - 4]
        ids = [bos] + q + [eos, eos] + d + [eos]
        types = [0] * len(ids)
    return ids, types


def main():
    root = Path(sys.argv[1])
    pairs = json.loads((root / "pairs.json").read_text())
    for arch, name in [("bert", "BERT"), ("xlm-roberta", "XLMR")]:
        d = root / arch
        cfg = json.loads((d / "config.json").read_text())
        tok = Tokenizer.from_file(str(d / "tokenizer.json"))
        tok.no_truncation()
        tok.no_padding()
        weights = {k: v.astype(np.float64) for k, v in load_file(str(d / "model.safetensors")).items()}
        all_ids, logits = [], []
        for doc in pairs["docs"]:
            ids, types = pair_ids(tok, arch, pairs["query"], doc, pairs["max_length"])
            out = bert_logits(ids, types, weights, cfg) if arch == "bert" else xlmr_logits(ids, weights, cfg)
            all_ids.append(ids)
            logits.append(float(out[0]))
        rows = ", ".join("&[" + ", ".join(map(str, i)) + "]" for i in all_ids)
        print(f"const {name}_IDS: [&[u32]; {len(all_ids)}] = [{rows}];")
        print(f"const {name}_LOGITS: [f32; {len(logits)}] = [" + ", ".join(f"{x:.6}" for x in logits) + "];")


if __name__ == "__main__":
    main()
